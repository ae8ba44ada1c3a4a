/* cushim's own messages: one write(2) per line, so lines from several threads
 * or processes never tear; to stderr, or to CUSHIM_LOG_FILE (%p = pid), a
 * file of the user's own (ownfile.c).  The bootstrap loads the configuration
 * here (cushim_conf_load): the log opens on it, then says each bad value.
 * A write that fails is said once per output: on the log, or on stderr where
 * the log is what failed, and in the report of `cushim run`
 * (CUSHIM_RUN_REPORT), which names it in its exit line. */
#include "conf.h"
#include "log.h"
#include "ownfile.h"
#include "settings.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int log_fd = 2;
static char log_path[4096];   /* CUSHIM_LOG_FILE as opened, "" for stderr */
static int log_lost;          /* a write to it failed, and was said */
static char report_path[4096]; /* CUSHIM_RUN_REPORT, "" without */

/* Expand %p to the pid and %% to %; anything else is kept as it is. */
int cushim_expand_path(const char *pattern, char *out, size_t size)
{
	size_t o = 0;
	for (const char *p = pattern; *p; p++) {
		char tmp[24];
		const char *add = tmp;
		if (p[0] == '%' && p[1] == 'p') {
			snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			tmp[0] = '%', tmp[1] = '\0';
			p++;
		} else {
			tmp[0] = *p, tmp[1] = '\0';
		}
		size_t n = strlen(add);
		if (o + n >= size)
			return -1;
		memcpy(out + o, add, n);
		o += n;
	}
	out[o] = '\0';
	return 0;
}

void cushim_log_open(void)
{
	char path[4096], why[160];
	int fd, created;

	if (!cushim_conf.log_file)
		return;
	if (cushim_expand_path(cushim_conf.log_file, path, sizeof path) != 0) {
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_LOG_FILE is too long; logging to stderr");
		return;
	}
	fd = cushim_open_own(path, O_WRONLY | O_APPEND, &created, why, sizeof why);
	if (fd == CUSHIM_REFUSED) {
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_LOG_FILE %s %s: logging to stderr", path, why);
		return;
	}
	if (fd < 0) {
		cushim_log(CUSHIM_LOG_WARN, "cannot open CUSHIM_LOG_FILE %s: %s; logging to stderr", path,
			   strerror(errno));
		return;
	}
	log_fd = fd;
	memcpy(log_path, path, sizeof log_path);
	log_lost = 0;
}

void cushim_log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (level > cushim_conf.level)
		return;
	memcpy(buf, "cushim: ", 8);
	va_start(ap, fmt);
	n = vsnprintf(buf + 8, sizeof buf - 9, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 8;
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	cushim_log_write(buf, (size_t)n);
}

int cushim_write_all(int fd, const char *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* A line for cushim run's exit line, "PID what was lost", appended to the
 * report it named, which must be a file of this user's. */
static void to_report(const char *text, size_t n)
{
	char line[1100], why[160];
	int m, fd;

	if (!report_path[0] || (fd = cushim_open_own(report_path, O_WRONLY | O_APPEND, NULL, why, sizeof why)) < 0)
		return;
	m = snprintf(line, sizeof line, "%ld %.*s\n", (long)getpid(), (int)n, text);
	if (m > 0)
		cushim_write_all(fd, line, (size_t)m < sizeof line ? (size_t)m : sizeof line - 1);
	close(fd);
}

/* The log file failed (err): said once, on stderr and to cushim run.  Its
 * own frame: a signal handler's trace line keeps its small stack. */
static __attribute__((noinline)) void log_file_lost(int err)
{
	char line[4200];
	int m;

	if (__atomic_exchange_n(&log_lost, 1, __ATOMIC_ACQ_REL))
		return;
	m = snprintf(line, sizeof line, "cushim: cannot write CUSHIM_LOG_FILE %s: %s; what follows in it is lost\n",
		     log_path, strerror(err));
	if (m > 0 && (size_t)m < sizeof line) {
		cushim_write_all(2, line, (size_t)m);
		to_report(line + 8, (size_t)m - 9);
	}
}

int cushim_log_write(const char *buf, size_t n)
{
	int fd = log_fd;

	if (cushim_write_all(fd, buf, n) == 0)
		return 0;
	if (fd != 2)
		log_file_lost(errno);
	return -1;
}

void cushim_log_lost(int *said, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (__atomic_exchange_n(said, 1, __ATOMIC_ACQ_REL))
		return;
	memcpy(buf, "cushim: ", 8);
	va_start(ap, fmt);
	n = vsnprintf(buf + 8, sizeof buf - 9, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 10)
		n = (int)sizeof buf - 10;
	to_report(buf + 8, (size_t)n);
	buf[8 + n] = '\n';
	if (cushim_conf.level >= CUSHIM_LOG_WARN)
		cushim_log_write(buf, (size_t)n + 9);
}

int cushim_log_fd(void)
{
	return log_fd;
}

/* After fork: a CUSHIM_LOG_FILE naming the pid gets the child a file of its own. */
void cushim_log_reopen_child(void)
{
	if (!cushim_conf.log_file || !strstr(cushim_conf.log_file, "%p"))
		return;
	if (log_fd > 2)
		close(log_fd);
	log_fd = 2;
	cushim_log_open();
}

/* Each bad value said once, with what it accepts and what applies. */
static void warn_bad_settings(void)
{
	char why[256];
	for (int i = 0; i < cushim_nsettings; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		const char *v = cushim_setting_env(s->name);
		if (v && cushim_setting_verdict(s, v, why, sizeof why))
			cushim_log(CUSHIM_LOG_WARN, "%s=\"%s\" is %s", s->name, v, why);
	}
}

void cushim_conf_load(void)
{
	cushim_conf_clear(&cushim_conf);
	cushim_conf_read(&cushim_conf);
	const char *report = cushim_setting_env("CUSHIM_RUN_REPORT");
	snprintf(report_path, sizeof report_path, "%s", report && strlen(report) < sizeof report_path ? report : "");
	cushim_log_open();
	warn_bad_settings();
}
