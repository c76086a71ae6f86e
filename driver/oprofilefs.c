// SPDX-License-Identifier: GPL-2.0
/*
 * oprofilefs: a small in-memory filesystem (magic 0x6f70726f, one shared
 * superblock) whose files oprofile_files.c creates at each mount. Values
 * are text; unmounting drops every file (kill_litter_super).
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/pagemap.h>

#include "compat.h"
#include "oprofilefs.h"

#define OPROFILEFS_MAGIC 0x6f70726f

static struct inode *opfs_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (inode) {
		inode->i_ino = get_next_ino();
		inode->i_mode = mode;
		op_inode_init_times(inode);
	}
	return inode;
}

static struct dentry *opfs_add(struct dentry *parent, char const *name, umode_t mode,
			       const struct file_operations *fops, void *priv)
{
	struct dentry *d;
	struct inode *inode;

	inode_lock(d_inode(parent));
	d = d_alloc_name(parent, name);
	if (!d)
		goto out;
	inode = opfs_inode(parent->d_sb, mode);
	if (!inode) {
		dput(d);
		d = NULL;
		goto out;
	}
	if (S_ISDIR(mode)) {
		inode->i_op = &simple_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		inc_nlink(inode);
		inc_nlink(d_inode(parent));
	} else {
		inode->i_fop = fops;
		inode->i_private = priv;
	}
	d_add(d, inode);
out:
	inode_unlock(d_inode(parent));
	return d;
}

int op_fs_file(struct dentry *dir, char const *name, umode_t perm,
	       const struct file_operations *fops, void *priv)
{
	return opfs_add(dir, name, S_IFREG | perm, fops, priv) ? 0 : -ENOMEM;
}

struct dentry *op_fs_mkdir(struct dentry *parent, char const *name)
{
	return opfs_add(parent, name, S_IFDIR | 0755, NULL, NULL);
}

static const struct super_operations opfs_super_ops = {
	.statfs = simple_statfs,
	.drop_inode = generic_delete_inode,
};

static int opfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = OPROFILEFS_MAGIC;
	sb->s_op = &opfs_super_ops;
	sb->s_time_gran = 1;
	root = opfs_inode(sb, S_IFDIR | 0755);
	if (!root)
		return -ENOMEM;
	root->i_op = &simple_dir_inode_operations;
	root->i_fop = &simple_dir_operations;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return op_create_files(sb->s_root);
}

static int opfs_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, opfs_fill_super);
}

static const struct fs_context_operations opfs_context_ops = {
	.get_tree = opfs_get_tree,
};

static int opfs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &opfs_context_ops;
	return 0;
}

static struct file_system_type oprofilefs_type = {
	.owner = THIS_MODULE,
	.name = "oprofilefs",
	.init_fs_context = opfs_init_fs_context,
	.kill_sb = kill_litter_super,
};

int op_fs_register(void)
{
	return register_filesystem(&oprofilefs_type);
}

void op_fs_unregister(void)
{
	unregister_filesystem(&oprofilefs_type);
}
