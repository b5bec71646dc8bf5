/*
 * The GGUF reader: every malformed file of gguf-cases.c rejected with its own message, every valid
 * unusual file loaded with exactly the values it was built from, every truncation and single-byte
 * corruption of a file handled without a crash, and the shared models loaded.
 */
#include "test-common.h"

#include "gguf-cases.h"
#include "gguf.h"

#include <stdio.h>
#include <string.h>

static struct test_log log_buf;

static void log_begin(void) {
    memset(&log_buf, 0, sizeof(log_buf));
    vnpu_log_set(test_log_collect, &log_buf, VNPU_LOG_WARN);
}

static void log_end(void) {
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

/* Open bytes and expect a rejection with one error message containing want. */
static void expect_rejected(const struct gb_bytes *b, const char *label, const char *want) {
    struct gguf_file *f = (struct gguf_file *) 1;
    log_begin();
    const enum vnpu_status st = gguf_open_memory(b->data, b->size, label, &f);
    log_end();
    if (st != VNPU_STATUS_BAD_FILE || log_buf.n_errors != 1 || !strstr(log_buf.text, want)) {
        fail_msg("%s: status %d, %d errors, log:\n%swanted one message containing: %s", label, st, log_buf.n_errors,
                 log_buf.text, want);
    }
    assert_null(f);
}

static void test_malformed_rejected(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_malformed(&n);
    struct gb_bytes b = {0};
    assert_true(n >= 40);
    for (size_t i = 0; i < n; i++) {
        gguf_case_build(&cases[i], NULL, &b);
        expect_rejected(&b, cases[i].name, cases[i].message);
    }
    gb_bytes_free(&b);
}

/* The same files from disk through gguf_open (mmap; a 0-byte file is not mapped). */
static void test_malformed_rejected_from_disk(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_write_malformed(test_tmpdir(), &n);
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s.gguf", test_tmpdir(), cases[i].name);
        struct gguf_file *f = NULL;
        log_begin();
        const enum vnpu_status st = gguf_open(path, &f);
        log_end();
        if (st != VNPU_STATUS_BAD_FILE || log_buf.n_errors != 1 || !strstr(log_buf.text, cases[i].message) ||
            !strstr(log_buf.text, path)) {
            fail_msg("%s: status %d, log:\n%s", path, st, log_buf.text);
        }
        assert_null(f);
    }
}

static void test_open_missing_and_directory(void **state) {
    (void) state;
    struct gguf_file *f = NULL;
    char path[4200];
    snprintf(path, sizeof(path), "%s/no-such-file.gguf", test_tmpdir());
    log_begin();
    assert_int_equal(gguf_open(path, &f), VNPU_STATUS_IO);
    assert_int_equal(gguf_open(test_tmpdir(), &f), VNPU_STATUS_IO);
    log_end();
    assert_null(f);
    assert_int_equal(log_buf.n_errors, 2);
    assert_non_null(strstr(log_buf.text, "No such file"));
    assert_non_null(strstr(log_buf.text, "not a regular file"));
}

/* kv i of f holds exactly the value described by d. */
static void check_kv(const struct gguf_file *f, int64_t i, const struct gb_kv *d) {
    const struct gguf_str key = gguf_kv_key(f, i);
    assert_int_equal(key.len, strlen(d->key));
    assert_memory_equal(key.data, d->key, key.len);
    assert_int_equal(gguf_find_key(f, d->key), i);
    assert_int_equal(gguf_kv_type(f, i), d->type);
    if (d->type == GGUF_TYPE_STRING) {
        const struct gguf_str s = gguf_get_str(f, i);
        assert_int_equal(s.len, strlen(d->str));
        assert_memory_equal(s.data, d->str, s.len);
        return;
    }
    if (d->type != GGUF_TYPE_ARRAY) {
        union {
            uint8_t u8;
            int8_t i8;
            uint16_t u16;
            int16_t i16;
            uint32_t u32;
            int32_t i32;
            float f32;
            uint64_t u64;
            int64_t i64;
            double f64;
        } got; /* every member starts at byte 0, compared with the described bytes */
        switch (d->type) {
            case GGUF_TYPE_UINT8: got.u8 = gguf_get_u8(f, i); break;
            case GGUF_TYPE_INT8: got.i8 = gguf_get_i8(f, i); break;
            case GGUF_TYPE_BOOL: got.u8 = gguf_get_bool(f, i); break;
            case GGUF_TYPE_UINT16: got.u16 = gguf_get_u16(f, i); break;
            case GGUF_TYPE_INT16: got.i16 = gguf_get_i16(f, i); break;
            case GGUF_TYPE_UINT32: got.u32 = gguf_get_u32(f, i); break;
            case GGUF_TYPE_INT32: got.i32 = gguf_get_i32(f, i); break;
            case GGUF_TYPE_FLOAT32: got.f32 = gguf_get_f32(f, i); break;
            case GGUF_TYPE_UINT64: got.u64 = gguf_get_u64(f, i); break;
            case GGUF_TYPE_INT64: got.i64 = gguf_get_i64(f, i); break;
            case GGUF_TYPE_FLOAT64: got.f64 = gguf_get_f64(f, i); break;
            case GGUF_TYPE_STRING:
            case GGUF_TYPE_ARRAY:
            case GGUF_TYPE_COUNT: fail_msg("not a scalar type"); break;
        }
        assert_memory_equal(&got, &d->bits, gguf_type_size(d->type));
        return;
    }
    assert_int_equal(gguf_get_arr_type(f, i), d->arr_type);
    assert_int_equal(gguf_get_arr_n(f, i), d->n);
    if (d->arr_type == GGUF_TYPE_STRING) {
        for (uint64_t j = 0; j < d->n; j++) {
            const struct gguf_str s = gguf_get_arr_str(f, i, j);
            assert_int_equal(s.len, strlen(d->strs[j]));
            assert_memory_equal(s.data, d->strs[j], s.len);
        }
    } else if (d->n > 0) {
        assert_memory_equal(gguf_get_arr_data(f, i), d->elems, d->n * gguf_type_size(d->arr_type));
    }
}

/* f holds exactly what d describes, tensor data included (bytes from gb_data_byte); base: the bytes f
 * was opened from, NULL when mapped from a file. */
static void check_matches(const struct gguf_file *f, const struct gb_file *d, const uint8_t *base) {
    assert_int_equal(gguf_version(f), d->version);
    assert_int_equal(gguf_alignment(f), d->alignment);
    assert_int_equal(gguf_data_offset(f) % d->alignment, 0);
    assert_int_equal(gguf_n_kv(f), d->n_kv);
    for (int i = 0; i < d->n_kv; i++) {
        check_kv(f, i, &d->kv[i]);
    }
    assert_int_equal(gguf_find_key(f, "no.such.key"), -1);
    assert_int_equal(gguf_n_tensors(f), d->n_tensors);
    for (int i = 0; i < d->n_tensors; i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        const struct gb_tensor *dt = &d->t[i];
        assert_string_equal(t->name, dt->name);
        assert_int_equal(gguf_find_tensor(f, dt->name), i);
        assert_int_equal(t->type, dt->type);
        assert_int_equal(t->n_dims, dt->n_dims);
        for (uint32_t k = 0; k < GGUF_MAX_DIMS; k++) {
            assert_int_equal(t->ne[k], k < dt->n_dims ? dt->ne[k] : 1);
        }
        assert_int_equal(t->size, vnpu_row_size(t->type, t->ne[0]) * (size_t) (t->ne[1] * t->ne[2] * t->ne[3]));
        assert_int_equal(t->offset % d->alignment, 0);
        if (base) {
            assert_ptr_equal(t->data, base + gguf_data_offset(f) + t->offset);
        }
        const uint8_t *p = t->data;
        for (size_t k = 0; k < t->size; k++) {
            if (p[k] != gb_data_byte(i, k)) {
                fail_msg("tensor %s byte %zu: %u, expected %u", t->name, k, p[k], gb_data_byte(i, k));
            }
        }
    }
    assert_int_equal(gguf_find_tensor(f, "no.such.tensor"), -1);
}

static void test_valid_unusual_load(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_valid(&n);
    struct gb_bytes b = {0};
    for (size_t i = 0; i < n; i++) {
        struct gb_file d;
        struct gguf_file *f = NULL;
        gguf_case_build(&cases[i], &d, &b);
        log_begin();
        const enum vnpu_status st = gguf_open_memory(b.data, b.size, cases[i].name, &f);
        log_end();
        if (st != VNPU_STATUS_OK || log_buf.len != 0) {
            fail_msg("%s (%s): status %d, log:\n%s", cases[i].name, cases[i].what, st, log_buf.text);
        }
        assert_string_equal(gguf_path(f), cases[i].name);
        assert_int_equal(gguf_file_size(f), b.size);
        check_matches(f, &d, b.data);
        gguf_close(f);
    }
    gb_bytes_free(&b);
}

static void test_valid_unusual_load_from_disk(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_write_valid(test_tmpdir(), &n);
    struct gb_bytes b = {0};
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        struct gb_file d;
        struct gguf_file *f = NULL;
        snprintf(path, sizeof(path), "%s/%s.gguf", test_tmpdir(), cases[i].name);
        gguf_case_build(&cases[i], &d, &b);
        assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
        check_matches(f, &d, NULL);
        gguf_close(f);
    }
    gb_bytes_free(&b);
}

/* gguf_get_int widens every integer type and refuses the rest. */
static void test_get_int(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_valid(&n);
    const struct gguf_case *extra = NULL;
    for (size_t i = 0; i < n; i++) {
        extra = strcmp(cases[i].name, "ok-extra-keys") == 0 ? &cases[i] : extra;
    }
    assert_non_null(extra);
    struct gb_bytes b = {0};
    struct gguf_file *f = NULL;
    gguf_case_build(extra, NULL, &b);
    assert_int_equal(gguf_open_memory(b.data, b.size, "extra", &f), VNPU_STATUS_OK);
    static const struct {
        const char *key;
        bool ok;
        int64_t value;
    } want[] = {
        {"x.u8", true, 0x10},        {"x.i8", true, 0x10},
        {"x.u16", true, 0x2010},     {"x.i16", true, 0x2010},
        {"x.u32", true, 0x40302010}, {"x.i32", true, 0x40302010},
        {"x.u64", false, 0},         {"x.i64", true, (int64_t) 0x8070605040302010ull},
        {"x.bool", false, 0},        {"x.f32", false, 0},
        {"x.f64", false, 0},         {"x.str", false, 0},
        {"x.arr.u8", false, 0},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int64_t v = 0;
        const int64_t k = gguf_find_key(f, want[i].key);
        assert_true(k >= 0);
        assert_int_equal(gguf_get_int(f, k, &v), want[i].ok);
        if (want[i].ok) {
            assert_int_equal(v, want[i].value);
        }
    }
    gguf_close(f);
    gb_bytes_free(&b);
}

/* Bytes of the file f that are needed: up to the end of the last tensor's data (the padding after it
 * is optional); for a file without tensors, all of it (the valid cases end right after the kvs). */
static size_t bytes_needed(const struct gguf_file *f) {
    size_t end = gguf_n_tensors(f) ? 0 : gguf_file_size(f);
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        const size_t e = gguf_data_offset(f) + t->offset + t->size;
        end = e > end ? e : end;
    }
    return end;
}

/* Every prefix of a valid file loads when it holds all the tensor data, and is rejected with exactly one
 * message otherwise; every single-byte change either loads or is rejected with one message (ASan and
 * UBSan watch the reads). */
static void test_every_cut_and_byte(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_valid(&n);
    struct gb_bytes b = {0};
    for (size_t c = 0; c < n; c++) {
        struct gguf_file *full = NULL;
        gguf_case_build(&cases[c], NULL, &b);
        assert_int_equal(gguf_open_memory(b.data, b.size, cases[c].name, &full), VNPU_STATUS_OK);
        const size_t needed = bytes_needed(full);
        gguf_close(full);
        for (size_t cut = 0; cut < b.size; cut++) {
            struct gguf_file *f = NULL;
            log_begin();
            const enum vnpu_status st = gguf_open_memory(b.data, cut, cases[c].name, &f);
            log_end();
            gguf_close(f);
            const enum vnpu_status want = cut >= needed ? VNPU_STATUS_OK : VNPU_STATUS_BAD_FILE;
            if (st != want || log_buf.n_errors != (want == VNPU_STATUS_OK ? 0 : 1)) {
                fail_msg("%s cut at %zu of %zu (needs %zu): status %d, log:\n%s", cases[c].name, cut, b.size, needed,
                         st, log_buf.text);
            }
        }
    }
    gguf_case_build(&cases[0], NULL, &b);
    for (size_t at = 0; at < b.size; at++) {
        const uint8_t saved = b.data[at];
        for (int flip = 0; flip < 2; flip++) {
            struct gguf_file *f = NULL;
            b.data[at] = flip ? (uint8_t) ~saved : (uint8_t) (saved + 1);
            log_begin();
            const enum vnpu_status st = gguf_open_memory(b.data, b.size, "changed", &f);
            log_end();
            const int want_errors = st == VNPU_STATUS_OK ? 0 : 1;
            if ((st != VNPU_STATUS_OK && st != VNPU_STATUS_BAD_FILE) || log_buf.n_errors != want_errors) {
                fail_msg("byte %zu changed: status %d, log:\n%s", at, st, log_buf.text);
            }
            gguf_close(f);
        }
        b.data[at] = saved;
    }
    gb_bytes_free(&b);
}

struct model_facts {
    const char *rel;
    int64_t n_tensors, n_kv;
    uint64_t n_vocab;
};

/* The shared models load, their counts are the documented ones (../shared/models/README.md), every key
 * and tensor is found by name, and the tensors tile the data section without leaving the file. */
static void test_shared_models_load(void **state) {
    (void) state;
    static const struct model_facts models[] = {
        {"stories260K.gguf", 48, 19, 512},
        {"derived/stories260K-F16.gguf", 48, 21, 512},
        {"derived/stories260K-Q8_0.gguf", 48, 21, 512},
        {"derived/stories260K-Q4_0.gguf", 48, 21, 512},
        {"llama-2-tiny-random.gguf", 12, 18, 32000},
    };
    for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
        const char *path = test_model_path(models[m].rel);
        struct gguf_file *f = NULL;
        assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
        assert_int_equal(gguf_version(f), 3);
        assert_int_equal(gguf_n_tensors(f), models[m].n_tensors);
        assert_int_equal(gguf_n_kv(f), models[m].n_kv);
        const int64_t tokens = gguf_find_key(f, "tokenizer.ggml.tokens");
        assert_true(tokens >= 0);
        assert_int_equal(gguf_get_arr_type(f, tokens), GGUF_TYPE_STRING);
        assert_int_equal(gguf_get_arr_n(f, tokens), models[m].n_vocab);
        for (int64_t i = 0; i < gguf_n_kv(f); i++) {
            const struct gguf_str key = gguf_kv_key(f, i);
            char name[256];
            snprintf(name, sizeof(name), "%.*s", (int) key.len, key.data);
            assert_int_equal(gguf_find_key(f, name), i);
        }
        size_t bytes = 0;
        for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
            const struct gguf_tensor_info *t = gguf_tensor(f, i);
            assert_int_equal(gguf_find_tensor(f, t->name), i);
            bytes += t->size;
        }
        assert_true(gguf_data_offset(f) + bytes <= gguf_file_size(f));
        const struct gguf_tensor_info *emb = gguf_tensor(f, gguf_find_tensor(f, "token_embd.weight"));
        assert_int_equal(emb->ne[1], (int64_t) models[m].n_vocab);
        gguf_close(f);
    }
}

/* A key of GGUF_MAX_KEY bytes loads; one byte more is rejected (gguf.md's 65535; the table's files stay small). */
static void test_key_length_limit(void **state) {
    (void) state;
    static char key[GGUF_MAX_KEY + 2];
    struct gb_file f;
    struct gb_layout lay;
    struct gb_bytes b = {0};
    for (int extra = 0; extra <= 1; extra++) {
        memset(key, 'k', GGUF_MAX_KEY + (size_t) extra);
        key[GGUF_MAX_KEY + extra] = '\0';
        gb_default(&f);
        gb_add_kv(&f, key, GGUF_TYPE_UINT32)->bits = 5;
        gb_serialize(&f, &b, &lay);
        if (extra) {
            expect_rejected(&b, "key-65536", "kv 7 'kkkkkkkk");
            expect_rejected(&b, "key-65536", "': key of 65536 bytes, the limit is 65535");
        } else {
            struct gguf_file *g = NULL;
            assert_int_equal(gguf_open_memory(b.data, b.size, "key-65535", &g), VNPU_STATUS_OK);
            assert_int_equal(gguf_get_u32(g, gguf_find_key(g, key)), 5);
            gguf_close(g);
        }
    }
    gb_bytes_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_rejected),
        cmocka_unit_test(test_malformed_rejected_from_disk),
        cmocka_unit_test(test_open_missing_and_directory),
        cmocka_unit_test(test_valid_unusual_load),
        cmocka_unit_test(test_valid_unusual_load_from_disk),
        cmocka_unit_test(test_get_int),
        cmocka_unit_test(test_every_cut_and_byte),
        cmocka_unit_test(test_shared_models_load),
        cmocka_unit_test(test_key_length_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
