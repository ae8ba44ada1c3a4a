/* cushim's own messages: one write(2) per line, so lines from several threads
 * or processes never tear; to stderr, or to CUSHIM_LOG_FILE (%p = pid).  The
 * bootstrap loads the configuration here (cushim_conf_load): the log opens on
 * it, then says each bad value. */
#include "conf.h"
#include "log.h"
#include "settings.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int log_fd = 2;

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
	char path[4096];
	int fd;

	if (!cushim_conf.log_file)
		return;
	if (cushim_expand_path(cushim_conf.log_file, path, sizeof path) != 0) {
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_LOG_FILE is too long; logging to stderr");
		return;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		cushim_log(CUSHIM_LOG_WARN, "cannot open CUSHIM_LOG_FILE %s: %s; logging to stderr", path,
			   strerror(errno));
		return;
	}
	log_fd = fd;
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
	cushim_write_all(log_fd, buf, (size_t)n);
}

void cushim_write_all(int fd, const char *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
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
	cushim_log_open();
	warn_bad_settings();
}
