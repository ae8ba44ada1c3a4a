/* What a module image holds, as the driver's module, library and link
 * functions take it: a fatbin, a fatbin wrapper (__fatBinC_Wrapper_t), a
 * cubin, a host ELF object or library with a .nv_fatbin section, or PTX
 * text.  Shared by the library (a module the driver refused) and its fuzz
 * target; the fatbins and cubins are read by fatbin.c. */
#ifndef CUSHIM_MODIMAGE_H
#define CUSHIM_MODIMAGE_H
#include "fatbin.h"

enum { IMG_UNKNOWN, IMG_FATBIN, IMG_CUBIN, IMG_HOST_ELF, IMG_PTX };

struct mi_image {
	int form;               /* one of the above */
	struct fb_list list;    /* its SASS and PTX images */
	char error[400];        /* why it could not be read, or that it holds no
				 * GPU code; "" when list holds its images */
};

/* What p[0..n) holds (a wrapper's fatbin must be read from its pointer by
 * the caller: form IMG_FATBIN, list empty, error set).  Free with mi_free. */
void mi_read(const unsigned char *p, size_t n, struct mi_image *im);
void mi_free(struct mi_image *im);
/* "a fatbin", "a cubin", "PTX", ... */
const char *mi_form_name(int form);
/* One line of what it holds: "SASS for sm_100; PTX ISA 9.0 for compute_90;
 * none compressed". */
const char *mi_describe(const struct mi_image *im, char *buf, size_t size);
#endif
