/* Small file system helpers shared by the daemon and the tools. */
#ifndef OP_FILE_H
#define OP_FILE_H

/*
 * Create directory dir and every missing parent, as mkdir -p (mode 0755).
 * 0 if it exists afterwards, else -errno of the component that failed.
 */
int op_mkdir_p(char const *dir);

/* op_mkdir_p of the directory part of path (nothing if it has none). */
int op_mkdir_parents(char const *path);

#endif /* OP_FILE_H */
