/* Missing exports: what a call of one returns, and the warning, once per
 * export, that says why it is missing (the driver too old, absent from it,
 * hidden by CUSHIM_HIDE, or cushim itself), or once for all that no driver
 * could be used. */
#include "table.h"
#include "conf.h"
#include "settings.h"
#include "log.h"
#include "observers.h"
#include "errors.h"
#include "source.h"
#include "state.h"
#include "missing.h"
#include "notes.h"
#include <stdio.h>

static CUresult missing_rc = CUSHIM_NEWER_DRIVER;
static unsigned char missing_logged[CUSHIM_NSYMS];

/* Called through a pointer typed with the export's own parameters: extra
 * arguments are ignored under every ABI cushim supports (the caller cleans up). */
CUresult cushim_missing(void)
{
	return missing_rc;
}

void cushim_report_missing(unsigned i)
{
	const struct cushim_sym *s = &cushim_syms[i];
	char need[16], have[32];
	const char *rc = cushim_error_name(missing_rc);

	if (__atomic_exchange_n(&missing_logged[i], 1, __ATOMIC_RELAXED) || missing_rc == CUDA_ERROR_NO_DEVICE)
		return; /* said once; or the bootstrap said once why nothing works */
	if (cushim_observers())
		cushim_observers()->missing(i, missing_rc);
	if (cushim_state.driver_version)
		snprintf(have, sizeof have, "CUDA %s", cushim_format_version(cushim_state.driver_version, need));
	else
		snprintf(have, sizeof have, "of unknown version");
	cushim_format_version(s->version, need);
	switch (cushim_missing_why[i]) {
	case CUSHIM_WHY_NEWER:
		cushim_log(CUSHIM_LOG_WARN, "%s needs a CUDA %s driver; this driver is %s (returning %s)",
			   s->name, need, have, rc);
		break;
	case CUSHIM_WHY_HIDDEN:
		cushim_log(CUSHIM_LOG_WARN, "%s is hidden by CUSHIM_HIDE (returning %s)", s->name, rc);
		break;
	case CUSHIM_WHY_SELF:
		cushim_log(CUSHIM_LOG_WARN, "%s resolved to cushim itself, not to a driver (returning %s)",
			   s->name, rc);
		break;
	default:
		cushim_log(CUSHIM_LOG_WARN, "%s (CUDA %s) is not provided by this driver (%s) (returning %s)",
			   s->name, need, have, rc);
	}
}

CUresult cushim_missing_call(unsigned i)
{
	cushim_report_missing(i);
	return missing_rc;
}

void cushim_missing_driver(int masquerade)
{
	missing_rc = CUDA_ERROR_NO_DEVICE;
	if (masquerade)
		cushim_note(CUSHIM_LOG_WARN, "libcuda.so.1 (%s) is cushim itself, and no real libcuda.so.1 was found "
			    "(CUSHIM_DRIVER, LD_LIBRARY_PATH, /etc/ld.so.conf, the usual folders): every driver call "
			    "returns CUDA_ERROR_NO_DEVICE", cushim_self_path());
	else
		cushim_note(CUSHIM_LOG_WARN, "no driver (libcuda.so.1) could be used: every driver call returns "
			    "CUDA_ERROR_NO_DEVICE");
}
