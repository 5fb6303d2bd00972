/*
 * trace_names.c: the words prof uses for the numbers in a trace, and what
 * makes an image identity.
 *
 * The names are part of prof's output ('prof-report info' prints them), so
 * they are stable.
 */
#include "format/trace.h"
#include "format/trace_ident.h"

#include <stdio.h>
#include <string.h>

static const char *pick(const char *const *names, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n || !names[v])
		return "unknown";
	return names[v];
}

#define PICK(names, v) pick(names, sizeof(names) / sizeof(names[0]), v)

const char *trace_os_name(int os)
{
	static const char *const names[] = { "unknown", "linux", "macos" };
	return PICK(names, os);
}

const char *trace_arch_name(int arch)
{
	static const char *const names[] = { "unknown", "x86_64", "arm64" };
	return PICK(names, arch);
}

const char *trace_mode_name(int mode)
{
	static const char *const names[] = { "unknown", "wall", "cpu" };
	return PICK(names, mode);
}

const char *trace_state_name(int state)
{
	static const char *const names[] = {
		"unknown", "running", "sleeping", "disk", "stopped", "other", "preempted",
	};
	return PICK(names, state);
}

const char *trace_sampler_name(int sampler)
{
	static const char *const names[] = { "unknown", "tick", "perf" };
	return PICK(names, sampler);
}

const char *trace_kernel_name(int kernel)
{
	static const char *const names[] = { "unknown", "sampled", "refused", "not-sampled" };
	return PICK(names, kernel);
}

const char *trace_priority_name(int priority)
{
	static const char *const names[] = { "unknown", "normal", "realtime", "refused" };
	return PICK(names, priority);
}

const char *trace_ident_kind_name(int kind)
{
	static const char *const names[] = { "none", "gnu-build-id", "macho-uuid", "go-build-id", "content" };
	return PICK(names, kind);
}

const char *trace_image_source_name(int source)
{
	static const char *const names[] = { "unknown", "path", "root", "mapped", "memory", "unread" };
	return PICK(names, source);
}

const char *trace_counter_name(int counter)
{
	static const char *const names[] = {
		"samples-lost", "threads-vanished", "stop-end", "stop-unreadable",
		"stop-not-up", "stop-misaligned", "stop-loop", "stop-depth",
		"throttled", "cpu-ns", "max-sample-rate", "stacks-read", "stacks-reused",
		"unstarted", "stop-window", "stop-not-code", "stacks-joined",
		"leaf-scans",
	};
	return PICK(names, counter);
}

const char *trace_mark_source_name(int source)
{
	static const char *const names[] = { "unknown", "control", "app" };
	return PICK(names, source);
}

const char *trace_region_name(int region)
{
	static const char *const names[] = { "image", "jit", "anon" };
	return PICK(names, region);
}

const char *trace_code_source_name(int source)
{
	static const char *const names[] = { "unknown", "perf-map", "jitdump", "vdso" };
	return PICK(names, source);
}

const char *trace_part_kind_name(int kind)
{
	static const char *const names[] = { "whole", "rotated", "snapshot" };
	return PICK(names, kind);
}

const char *trace_damage_name(int damage)
{
	static const char *const names[] = {
		"no intact chunk header",
		"a length over 64 MiB",
		"its frame runs into the next chunk",
		"not one zstd frame as the format requires",
		"content checksum mismatch",
		"its contents do not parse",
		"out of sequence",
		"after the footer",
		"the footer disagrees with the chunks before it",
	};
	return PICK(names, damage);
}

int trace_ident_valid(int kind, size_t len)
{
	switch (kind) {
	case TRACE_IDENT_GNU_BUILD_ID: return len >= 2 && len <= TRACE_MAX_IDENT;
	case TRACE_IDENT_MACHO_UUID: return len == 16;
	case TRACE_IDENT_GO_BUILD_ID: return len >= 1 && len <= TRACE_MAX_IDENT;
	case TRACE_IDENT_CONTENT: return len == TRACE_IDENT_CONTENT_LEN;
	default: return 0;
	}
}

int trace_ident_same(int kind, size_t len, const uint8_t *ident, int kind2, size_t len2,
		     const uint8_t *ident2)
{
	return kind == kind2 && len == len2 && len <= TRACE_MAX_IDENT && !memcmp(ident, ident2, len);
}

int trace_rate_short(int mode, uint32_t rate_hz, uint64_t samples, double secs, uint64_t threads)
{
	double due = secs * rate_hz;

	if (mode == TRACE_MODE_CPU)
		due -= (double)threads;
	return due >= 100 && (double)samples < 0.9 * due;
}

const char *trace_rate_note(int sampler, const uint64_t *counters, uint32_t rate_hz, uint64_t samples, double secs,
			    char *buf, size_t n)
{
	unsigned long long throttled = counters[TRACE_COUNTER_THROTTLED];
	unsigned long long limit = counters[TRACE_COUNTER_MAX_SAMPLE_RATE];
	unsigned long long lost = counters[TRACE_COUNTER_SAMPLES_LOST];
	unsigned long long unstarted = counters[TRACE_COUNTER_UNSTARTED];

	if (sampler != TRACE_SAMPLER_PERF)
		snprintf(buf, n, "the sampler could not keep up, and the ticks it missed are counted lost; "
			 "lower -F");
	else if (throttled)
		snprintf(buf, n, "the kernel throttled sampling %llu times, holding back samples that cost it "
			 "more than kernel.perf_cpu_time_max_percent allows (kernel.perf_event_max_sample_rate "
			 "was %llu at the end); lower -F", throttled, limit);
	else if (limit && limit < rate_hz)
		snprintf(buf, n, "kernel.perf_event_max_sample_rate was %llu at the end; lower -F or raise "
			 "the sysctl", limit);
	else if (secs > 0 && (double)(samples + lost) / secs >= 0.9 * rate_hz && 2 * unstarted > lost)
		snprintf(buf, n, "%llu ticks fell while new threads waited for their first run, before "
			 "they had a stack, and are counted lost", unstarted);
	else if (secs > 0 && (double)(samples + lost) / secs >= 0.9 * rate_hz)
		snprintf(buf, n, "%llu samples were lost, the recorder not draining the kernel's buffers in "
			 "time (see its priority)", lost);
	else
		snprintf(buf, n, "no kernel setting held it back (no throttling recorded, "
			 "kernel.perf_event_max_sample_rate %llu): each sample took the kernel about as long "
			 "as the period asked; lower -F", limit);
	return buf;
}
