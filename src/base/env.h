/* Integer settings from the environment, read one way everywhere (the VNPU_* variables). */
#ifndef VNPU_ENV_H
#define VNPU_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Variable name as an unsigned in [lo, hi]: decimal digits (leading zeros are decimal: 010 is ten), or 0x / 0X and
 * hex digits; nothing else (no sign, no spaces). def when unset or empty. On a bad value returns false with *out =
 * def and, when why is not NULL, "NAME='value': expected an integer in lo..hi" in why (why_size bytes). */
bool vnpu_env_uint(const char *name, uint32_t lo, uint32_t hi, uint32_t def, uint32_t *out, char *why, size_t why_size);

#endif /* VNPU_ENV_H */
