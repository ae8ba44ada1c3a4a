/* The log (log.c): CUSHIM_LOG's level, to stderr or CUSHIM_LOG_FILE. */
#ifndef CUSHIM_LOG_H
#define CUSHIM_LOG_H
#include <stddef.h>
#include "hidden.h"

void cushim_log(int level, const char *fmt, ...) CUSHIM_HIDDEN __attribute__((format(printf, 2, 3)));
void cushim_log_open(void) CUSHIM_HIDDEN;
void cushim_log_reopen_child(void) CUSHIM_HIDDEN;
int cushim_log_fd(void) CUSHIM_HIDDEN;
/* n bytes at buf written to fd whole: 0, or -1 with errno. */
int cushim_write_all(int fd, const char *buf, size_t n) CUSHIM_HIDDEN;
/* Lines written to the log whole: 0, or -1 when the log file failed (said
 * once, on stderr and to cushim run). */
int cushim_log_write(const char *buf, size_t n) CUSHIM_HIDDEN;
/* An output lost what was written to it: said once per *said (the output's
 * flag, set here) on the log and to cushim run, at level warn. */
void cushim_log_lost(int *said, const char *fmt, ...) CUSHIM_HIDDEN __attribute__((format(printf, 2, 3)));
int cushim_expand_path(const char *pattern, char *out, size_t size) CUSHIM_HIDDEN;

/* cushim_conf from the environment, the log opened, bad values said. */
void cushim_conf_load(void) CUSHIM_HIDDEN;

#endif
