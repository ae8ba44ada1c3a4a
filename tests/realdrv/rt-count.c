/* Opens a CUDA runtime by path and asks it for the device count and the
 * driver's version: "count RESULT N driver VERSION".  With "work", it then
 * moves 1 MiB of index-dependent data through the GPU and back (to the
 * device, device to device, a memset of the middle, back to the host) and
 * prints "work RESULT CHECKSUM", RESULT being the first failure's code (0:
 * all succeeded and the data is as expected, -1: the data differs).  Exit 2
 * when the runtime cannot be opened. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 18) /* words */
enum { TO_DEVICE = 1, TO_HOST = 2, DEVICE_TO_DEVICE = 3 };
static int (*rt_malloc)(void **, size_t), (*rt_free)(void *), (*rt_memset)(void *, int, size_t);
static int (*rt_memcpy)(void *, const void *, size_t, int);

/* The round trip; its result, the checksum in *sum. */
static int work(uint64_t *sum)
{
	static uint32_t host[N], back[N];
	void *a = NULL, *b = NULL;
	int r;

	for (uint32_t i = 0; i < N; i++)
		host[i] = i * 2654435761u ^ (i >> 3);
	if ((r = rt_malloc(&a, sizeof host)) || (r = rt_malloc(&b, sizeof host)) ||
	    (r = rt_memcpy(a, host, sizeof host, TO_DEVICE)) || (r = rt_memcpy(b, a, sizeof host, DEVICE_TO_DEVICE)) ||
	    (r = rt_memset((char *)b + sizeof host / 4, 0x5a, sizeof host / 2)) ||
	    (r = rt_memcpy(back, b, sizeof back, TO_HOST)))
		return r;
	rt_free(a);
	rt_free(b);
	memset((char *)host + sizeof host / 4, 0x5a, sizeof host / 2);
	*sum = 0;
	for (uint32_t i = 0; i < N; i++)
		*sum = *sum * 31 + back[i];
	return memcmp(host, back, sizeof host) ? -1 : 0;
}

int main(int argc, char **argv)
{
	void *rt = argc >= 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*count)(int *), (*driver)(int *);
	int n = -1, v = -1, r;
	uint64_t sum = 0;

	if (!rt) {
		fprintf(stderr, "usage: rt-count LIBCUDART [work] (%s)\n", argc >= 2 ? dlerror() : "no path");
		return 2;
	}
	*(void **)&count = dlsym(rt, "cudaGetDeviceCount");
	*(void **)&driver = dlsym(rt, "cudaDriverGetVersion");
	*(void **)&rt_malloc = dlsym(rt, "cudaMalloc");
	*(void **)&rt_free = dlsym(rt, "cudaFree");
	*(void **)&rt_memset = dlsym(rt, "cudaMemset");
	*(void **)&rt_memcpy = dlsym(rt, "cudaMemcpy");
	if (!count || !driver || !rt_malloc || !rt_free || !rt_memset || !rt_memcpy) {
		fprintf(stderr, "rt-count: %s is no CUDA runtime\n", argv[1]);
		return 2;
	}
	r = count(&n);
	driver(&v);
	printf("count %d %d driver %d\n", r, n, v);
	if (argc == 3 && strcmp(argv[2], "work") == 0) {
		r = r ? r : work(&sum);
		printf("work %d %016llx\n", r, (unsigned long long)sum);
	}
	return 0;
}
