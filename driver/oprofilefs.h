/* SPDX-License-Identifier: GPL-2.0 */
/* The oprofilefs filesystem (oprofilefs.c) and its files (oprofile_files.c). */
#ifndef OP_OPROFILEFS_H
#define OP_OPROFILEFS_H

#include <linux/fs.h>

int op_fs_register(void);
void op_fs_unregister(void);
struct dentry *op_fs_mkdir(struct dentry *parent, char const *name);
int op_fs_file(struct dentry *dir, char const *name, umode_t perm,
	       const struct file_operations *fops, void *priv);

/* oprofile_files.c: every file under root, at each mount. */
int op_create_files(struct dentry *root);

#endif
