/* cushim check: what was read of each input (a folder, a wheel, the
 * interpreter --python asked and its folders), one line each, and their
 * entries in --json: so that an input with nothing to judge still says so. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "check-wheel.h"
#include <stdio.h>

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* What a wheel's line says of its members. */
static void print_members(const struct tree_input *in, const struct opts *o)
{
	if (!in->files)
		printf(": it holds no ELF file or GPU code (%zu member%s): nothing to judge", in->members,
		       plural(in->members));
	else
		printf(": %zu of its %zu member%s judged", in->files, in->members, plural(in->members));
	if (o->verbose) {
		unsigned long k = tree_wheel_opens(in->path), d = tree_wheel_inflated(in->path);
		printf(" (the archive opened %lu time%s to read it)\n%s: %lu member%s inflated whole through libdeflate", k,
		       k == 1 ? "" : "s", in->path, d, d == 1 ? "" : "s");
	}
}

static void print_input(const struct tree_input *in, const char *python, const struct opts *o)
{
	switch (in->kind) {
	case INPUT_WHEEL:
		printf("%s: a wheel", in->path);
		print_members(in, o);
		break;
	case INPUT_ZIP:
		printf("%s: a zip archive, not a wheel (no NAME.dist-info/WHEEL in it)", in->path);
		print_members(in, o);
		break;
	case INPUT_PYTHON:
		printf("%s: the interpreter %s", in->path, in->about ? in->about : "(it did not say its path)");
		break;
	default:
		if (in->kind == INPUT_SITE)
			printf("%s: site-packages %s", python, in->path);
		else
			printf("%s: a folder", in->path);
		if (in->missing) {
			printf(": does not exist; not read\n");
			return;
		}
		if (in->files)
			printf(": %zu file%s judged", in->files, plural(in->files));
		else
			printf(": it holds no ELF file or GPU code: nothing to judge");
		if (in->system)
			printf(" (/proc, /sys, /dev and /run are not walked)");
	}
	printf("\n");
}

/* One line for each thing read: what it is, and how many files of it were
 * judged. */
void env_print_inputs(const struct tree *t, const struct opts *o)
{
	const char *python = "python";
	for (size_t i = 0; i < t->ninputs; i++) {
		if (t->inputs[i].kind == INPUT_PYTHON)
			python = t->inputs[i].path;
		print_input(&t->inputs[i], python, o);
	}
}

static const char *const input_kinds[] = { "folder", "wheel", "zip", "site-packages", "python" };

void env_print_inputs_json(const struct tree *t)
{
	printf(", \"inputs\": [");
	for (size_t i = 0; i < t->ninputs; i++) {
		const struct tree_input *in = &t->inputs[i];
		printf("%s{\"path\": ", i ? ", " : "");
		cushim_json_print(stdout, in->path);
		printf(", \"kind\": \"%s\", \"files\": %zu", input_kinds[in->kind], in->files);
		if (in->kind == INPUT_WHEEL || in->kind == INPUT_ZIP)
			printf(", \"members\": %zu, \"archive_opens\": %lu, \"inflated_by_libdeflate\": %lu", in->members,
			       tree_wheel_opens(in->path), tree_wheel_inflated(in->path));
		if (in->kind == INPUT_SITE)
			printf(", \"exists\": %s", in->missing ? "false" : "true");
		if (in->kind == INPUT_PYTHON) {
			printf(", \"interpreter\": ");
			if (in->about)
				cushim_json_print(stdout, in->about);
			else
				printf("null");
		}
		printf("}");
	}
	printf("]");
}
