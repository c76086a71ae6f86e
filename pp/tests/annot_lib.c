/*
 * The shared library of the opannotate test workload: one hot loop.
 * Lines marked "hot:NAME" are the loop of function NAME; the test
 * expects at least 90% of NAME's samples on them.
 */
volatile unsigned annot_lib_sink;

unsigned annot_lib_hot(unsigned long n)
{
	unsigned x = 1;

	for (unsigned long i = 0; i < n; i++) {        /* hot:annot_lib_hot */
		x = x * 2654435761u + (unsigned)i;     /* hot:annot_lib_hot */
		annot_lib_sink = x;                    /* hot:annot_lib_hot */
	}                                              /* hot:annot_lib_hot */
	return x;
}
