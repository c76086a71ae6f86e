/*
 * XML reports valid against doc/opreport.xsd (pp_output_xml.c).
 */
#ifndef PP_OUTPUT_XML_H
#define PP_OUTPUT_XML_H

#include <stddef.h>
#include <stdio.h>

#include "pp_output.h"

/* 0, or -1 with err (options XML cannot express). */
int pp_output_xml(FILE *out, struct pp_report const *r,
		  struct pp_output_opts const *o, char *err, size_t errlen);

#endif /* PP_OUTPUT_XML_H */
