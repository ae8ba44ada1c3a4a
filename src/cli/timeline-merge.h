/* cushim timeline --merge (timeline-merge.c). */
#ifndef CUSHIM_CLI_TIMELINE_MERGE_H
#define CUSHIM_CLI_TIMELINE_MERGE_H

/* Merges files into out: an exit status. */
int tl_merge(const char *out, char **files, int n);
#endif
