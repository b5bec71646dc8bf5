/*
 * The GGUF writer: what it writes reads back identical (every value type, arrays, tensors of several
 * types, a whole shared model), the layout is llama.cpp's (packed, padded offsets), and every failure
 * leaves nothing at the path and no temporary behind.
 */
#include "test-common.h"

#include "gguf-cases.h"
#include "gguf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct test_log log_buf;

static void log_begin(void) {
    memset(&log_buf, 0, sizeof(log_buf));
    vnpu_log_set(test_log_collect, &log_buf, VNPU_LOG_WARN);
}

static void log_end(void) {
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static const char *tmp_path(const char *name) {
    static char path[4200];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
    return path;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Whether a temporary of the writer (path.XXXXXX, src/base/file-out.h) was left beside path. */
static bool tmp_exists(const char *path) {
    char pattern[4300];
    snprintf(pattern, sizeof(pattern), "%s.??????", path);
    glob_t g;
    const int rc = glob(pattern, 0, NULL, &g);
    globfree(&g);
    return rc == 0;
}

/* The encoded bytes of a kv's value, for comparing two files kv by kv. */
static void kv_value_bytes(const struct gguf_file *f, int64_t i, struct gb_bytes *out) {
    const enum gguf_type type = gguf_kv_type(f, i);
    out->size = 0;
    if (type == GGUF_TYPE_STRING) {
        const struct gguf_str s = gguf_get_str(f, i);
        gb_bytes_put(out, s.data, s.len);
    } else if (type != GGUF_TYPE_ARRAY) {
        int64_t v = 0;
        uint8_t scalar[8];
        switch (type) {
            case GGUF_TYPE_FLOAT32: {
                const float x = gguf_get_f32(f, i);
                memcpy(scalar, &x, sizeof(x));
            } break;
            case GGUF_TYPE_FLOAT64: {
                const double x = gguf_get_f64(f, i);
                memcpy(scalar, &x, sizeof(x));
            } break;
            case GGUF_TYPE_BOOL: scalar[0] = gguf_get_bool(f, i); break;
            case GGUF_TYPE_UINT64: {
                const uint64_t x = gguf_get_u64(f, i);
                memcpy(scalar, &x, sizeof(x));
            } break;
            case GGUF_TYPE_UINT8:
            case GGUF_TYPE_INT8:
            case GGUF_TYPE_UINT16:
            case GGUF_TYPE_INT16:
            case GGUF_TYPE_UINT32:
            case GGUF_TYPE_INT32:
            case GGUF_TYPE_INT64:
                assert_true(gguf_get_int(f, i, &v));
                memcpy(scalar, &v, sizeof(scalar)); /* little-endian: the low bytes are the value */
                break;
            case GGUF_TYPE_STRING:
            case GGUF_TYPE_ARRAY:
            case GGUF_TYPE_COUNT: fail_msg("not a scalar"); break;
        }
        gb_bytes_put(out, scalar, gguf_type_size(type));
    } else if (gguf_get_arr_type(f, i) == GGUF_TYPE_STRING) {
        for (uint64_t j = 0; j < gguf_get_arr_n(f, i); j++) {
            const struct gguf_str s = gguf_get_arr_str(f, i, j);
            gb_bytes_put(out, &s.len, sizeof(s.len));
            gb_bytes_put(out, s.data, s.len);
        }
    } else {
        gb_bytes_put(out, gguf_get_arr_data(f, i), gguf_get_arr_n(f, i) * gguf_type_size(gguf_get_arr_type(f, i)));
    }
}

/* b has the kvs (same order, types and values) and the tensors (names, shapes, types, bytes) of a. */
static void check_same(const struct gguf_file *a, const struct gguf_file *b) {
    struct gb_bytes va = {0}, vb = {0};
    assert_int_equal(gguf_n_kv(b), gguf_n_kv(a));
    for (int64_t i = 0; i < gguf_n_kv(a); i++) {
        const struct gguf_str ka = gguf_kv_key(a, i), kb = gguf_kv_key(b, i);
        assert_int_equal(ka.len, kb.len);
        assert_memory_equal(ka.data, kb.data, ka.len);
        assert_int_equal(gguf_kv_type(b, i), gguf_kv_type(a, i));
        if (gguf_kv_type(a, i) == GGUF_TYPE_ARRAY) {
            assert_int_equal(gguf_get_arr_type(b, i), gguf_get_arr_type(a, i));
            assert_int_equal(gguf_get_arr_n(b, i), gguf_get_arr_n(a, i));
        }
        kv_value_bytes(a, i, &va);
        kv_value_bytes(b, i, &vb);
        assert_int_equal(va.size, vb.size);
        assert_memory_equal(va.data, vb.data, va.size);
    }
    assert_int_equal(gguf_n_tensors(b), gguf_n_tensors(a));
    for (int64_t i = 0; i < gguf_n_tensors(a); i++) {
        const struct gguf_tensor_info *ta = gguf_tensor(a, i), *tb = gguf_tensor(b, i);
        assert_string_equal(tb->name, ta->name);
        assert_int_equal(tb->type, ta->type);
        assert_int_equal(tb->n_dims, ta->n_dims);
        assert_memory_equal(tb->ne, ta->ne, sizeof(ta->ne));
        assert_int_equal(tb->size, ta->size);
        assert_memory_equal(tb->data, ta->data, ta->size);
    }
    gb_bytes_free(&va);
    gb_bytes_free(&vb);
}

/* Offsets are packed in add order with each tensor padded to the alignment, as llama.cpp's reader
 * requires, and the data section starts on the alignment. */
static void check_llama_layout(const struct gguf_file *f) {
    uint64_t next = 0;
    const size_t a = gguf_alignment(f);
    assert_int_equal(gguf_data_offset(f) % a, 0);
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        assert_int_equal(t->offset, next);
        next += (t->size + a - 1) / a * a;
    }
    assert_int_equal(gguf_file_size(f), gguf_data_offset(f) + next);
}

/* Copy every kv and tensor of a file with the writer, then read the copy. */
static struct gguf_file *copy_file(const struct gguf_file *src, const char *path) {
    struct gguf_writer *w = gguf_writer_new();
    struct gguf_file *f = NULL;
    assert_non_null(w);
    for (int64_t i = 0; i < gguf_n_kv(src); i++) {
        gguf_writer_copy_kv(w, src, i);
    }
    for (int64_t i = 0; i < gguf_n_tensors(src); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(src, i);
        gguf_writer_add_tensor(w, t->name, t->type, t->n_dims, t->ne, t->data);
    }
    assert_int_equal(gguf_writer_write(w, path), VNPU_STATUS_OK);
    gguf_writer_free(w);
    assert_false(tmp_exists(path));
    assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
    return f;
}

/* Every valid unusual file (every value type, empty arrays and strings, alignment 1 and 64, ...) copies
 * to an identical file in llama.cpp's layout. */
static void test_copy_valid_cases(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_valid(&n);
    struct gb_bytes b = {0};
    for (size_t i = 0; i < n; i++) {
        struct gguf_file *src = NULL;
        gguf_case_build(&cases[i], NULL, &b);
        assert_int_equal(gguf_open_memory(b.data, b.size, cases[i].name, &src), VNPU_STATUS_OK);
        struct gguf_file *copy = copy_file(src, tmp_path("copy.gguf"));
        assert_int_equal(gguf_version(copy), 3);
        assert_int_equal(gguf_alignment(copy), gguf_alignment(src));
        check_same(src, copy);
        check_llama_layout(copy);
        gguf_close(copy);
        gguf_close(src);
    }
    gb_bytes_free(&b);
}

/* Each shared model (written by llama.cpp) copies to a byte-identical file. */
static void test_copy_shared_models(void **state) {
    (void) state;
    static const char *const models[] = {"stories260K.gguf", "derived/stories260K-Q4_0.gguf",
                                         "llama-2-tiny-random.gguf"};
    for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
        struct gguf_file *src = NULL;
        size_t size_src = 0, size_copy = 0;
        assert_int_equal(gguf_open(test_model_path(models[m]), &src), VNPU_STATUS_OK);
        struct gguf_file *copy = copy_file(src, tmp_path("model-copy.gguf"));
        check_same(src, copy);
        check_llama_layout(copy);
        gguf_close(copy);
        gguf_close(src);
        char *a = test_read_file(test_model_path(models[m]), &size_src);
        char *b = test_read_file(tmp_path("model-copy.gguf"), &size_copy);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(size_copy, size_src);
        assert_memory_equal(b, a, size_src);
        free(a);
        free(b);
    }
}

/* Setters: each value type round trips, a key set again keeps its first position with the new value,
 * and general.alignment changes the layout. */
static void test_setters(void **state) {
    (void) state;
    static const int64_t ne_a[] = {32, 3}, ne_b[] = {5, 2, 1, 3}, ne_c[] = {64};
    static const float values[] = {0.5f, -1.0f, 3.25f};
    static const uint8_t bools[] = {1, 0, 1, 1};
    const struct gguf_str strs[] = {{"tok", 3}, {"", 0}, {"a\0b", 3}};
    uint8_t q8[3 * 34], f16[30 * 2], f32[64 * 4];
    for (size_t k = 0; k < sizeof(q8); k++) {
        q8[k] = (uint8_t) (k * 13 + 5);
    }
    memset(f16, 0x3c, sizeof(f16));
    memset(f32, 0x41, sizeof(f32));
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    gguf_writer_set_str(w, "general.architecture", "old");
    gguf_writer_set_u8(w, "v.u8", 200);
    gguf_writer_set_i8(w, "v.i8", -100);
    gguf_writer_set_u16(w, "v.u16", 60000);
    gguf_writer_set_i16(w, "v.i16", -30000);
    gguf_writer_set_u32(w, "v.u32", 4000000000u);
    gguf_writer_set_i32(w, "v.i32", -2000000000);
    gguf_writer_set_f32(w, "v.f32", 1.5f);
    gguf_writer_set_u64(w, "v.u64", UINT64_MAX);
    gguf_writer_set_i64(w, "v.i64", INT64_MIN);
    gguf_writer_set_f64(w, "v.f64", -2.25);
    gguf_writer_set_bool(w, "v.bool", true);
    gguf_writer_set_arr_data(w, "v.arr.f32", GGUF_TYPE_FLOAT32, values, 3);
    gguf_writer_set_arr_data(w, "v.arr.bool", GGUF_TYPE_BOOL, bools, 4);
    gguf_writer_set_arr_data(w, "v.arr.empty", GGUF_TYPE_INT64, NULL, 0);
    gguf_writer_set_arr_str(w, "v.arr.str", strs, 3);
    gguf_writer_set_u32(w, "general.alignment", 64);
    gguf_writer_set_str(w, "general.architecture", "new");
    gguf_writer_add_tensor(w, "q", VNPU_TYPE_Q8_0, 2, ne_a, q8);
    gguf_writer_add_tensor(w, "h", VNPU_TYPE_F16, 4, ne_b, f16);
    gguf_writer_add_tensor(w, "f", VNPU_TYPE_F32, 1, ne_c, f32);
    const char *path = tmp_path("setters.gguf");
    assert_int_equal(gguf_writer_write(w, path), VNPU_STATUS_OK);
    gguf_writer_free(w);

    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
    assert_int_equal(gguf_n_kv(f), 17);
    assert_int_equal(gguf_find_key(f, "general.architecture"), 0);
    const struct gguf_str arch = gguf_get_str(f, 0);
    assert_int_equal(arch.len, 3);
    assert_memory_equal(arch.data, "new", 3);
    assert_int_equal(gguf_get_u8(f, gguf_find_key(f, "v.u8")), 200);
    assert_int_equal(gguf_get_i8(f, gguf_find_key(f, "v.i8")), -100);
    assert_int_equal(gguf_get_u16(f, gguf_find_key(f, "v.u16")), 60000);
    assert_int_equal(gguf_get_i16(f, gguf_find_key(f, "v.i16")), -30000);
    assert_int_equal(gguf_get_u32(f, gguf_find_key(f, "v.u32")), 4000000000u);
    assert_int_equal(gguf_get_i32(f, gguf_find_key(f, "v.i32")), -2000000000);
    assert_true(gguf_get_f32(f, gguf_find_key(f, "v.f32")) == 1.5f);
    assert_true(gguf_get_u64(f, gguf_find_key(f, "v.u64")) == UINT64_MAX);
    assert_true(gguf_get_i64(f, gguf_find_key(f, "v.i64")) == INT64_MIN);
    assert_true(gguf_get_f64(f, gguf_find_key(f, "v.f64")) == -2.25);
    assert_true(gguf_get_bool(f, gguf_find_key(f, "v.bool")));
    const int64_t af = gguf_find_key(f, "v.arr.f32"), ab = gguf_find_key(f, "v.arr.bool");
    const int64_t ae = gguf_find_key(f, "v.arr.empty"), as = gguf_find_key(f, "v.arr.str");
    assert_int_equal(gguf_get_arr_n(f, af), 3);
    assert_memory_equal(gguf_get_arr_data(f, af), values, sizeof(values));
    assert_memory_equal(gguf_get_arr_data(f, ab), bools, sizeof(bools));
    assert_int_equal(gguf_get_arr_type(f, ae), GGUF_TYPE_INT64);
    assert_int_equal(gguf_get_arr_n(f, ae), 0);
    for (uint64_t j = 0; j < 3; j++) {
        const struct gguf_str s = gguf_get_arr_str(f, as, j);
        assert_int_equal(s.len, strs[j].len);
        assert_memory_equal(s.data, strs[j].data, s.len);
    }
    assert_int_equal(gguf_alignment(f), 64);
    check_llama_layout(f);
    const struct gguf_tensor_info *h = gguf_tensor(f, gguf_find_tensor(f, "h"));
    assert_int_equal(h->n_dims, 4);
    assert_memory_equal(h->ne, ne_b, sizeof(ne_b));
    assert_memory_equal(h->data, f16, sizeof(f16));
    assert_memory_equal(gguf_tensor(f, 0)->data, q8, sizeof(q8));
    assert_memory_equal(gguf_tensor(f, 2)->data, f32, sizeof(f32));
    gguf_close(f);
}

/* A bad set/add call (a tensor, general.alignment, a key the reader would refuse) fails the writer: write returns its
 * status and creates nothing. */
static void test_bad_calls_write_nothing(void **state) {
    (void) state;
    static const uint8_t data[64 * 4];
    static const int64_t ne_ok[] = {64}, ne_zero[] = {0}, ne_48[] = {48};
    static const struct {
        const char *what, *name, *message;
        enum vnpu_type type;
        uint32_t n_dims;
        const int64_t *ne;
        const char *key; /* name NULL: set this key to value */
        uint32_t value;
    } bad[] = {
        {"duplicate name", "t", "duplicate name", VNPU_TYPE_F32, 1, ne_ok, NULL, 0},
        {"empty name", "", "name is 0 bytes", VNPU_TYPE_F32, 1, ne_ok, NULL, 0},
        {"long name", "a.name.that.is.sixty.four.bytes.long.which.is.one.too.many.xxxxx", "name is 64 bytes",
         VNPU_TYPE_F32, 1, ne_ok, NULL, 0},
        {"n_dims 5", "u", "5 dims", VNPU_TYPE_F32, 5, ne_ok, NULL, 0},
        {"ne 0", "u", "ne[0] = 0", VNPU_TYPE_F32, 1, ne_zero, NULL, 0},
        {"removed type", "u", "invalid type id 4", (enum vnpu_type) 4, 1, ne_ok, NULL, 0},
        {"row not whole blocks", "u", "ne[0] = 48 is not whole q8_0 blocks", VNPU_TYPE_Q8_0, 1, ne_48, NULL, 0},
        {"alignment 48", NULL, "general.alignment 48 is not a power of two", VNPU_TYPE_F32, 0, NULL,
         "general.alignment", 48},
        {"empty key", NULL, "key '': empty key", VNPU_TYPE_F32, 0, NULL, "", 1},
        {"upper-case key", NULL, "key 'test.Flag': key byte 5 is 'F'", VNPU_TYPE_F32, 0, NULL, "test.Flag", 1},
        {"key ending with '.'", NULL, "key 'test.': key byte 4: a '.' last", VNPU_TYPE_F32, 0, NULL, "test.", 1},
    };
    const char *path = tmp_path("never.gguf");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gguf_writer *w = gguf_writer_new();
        assert_non_null(w);
        gguf_writer_add_tensor(w, "t", VNPU_TYPE_F32, 1, ne_ok, data);
        log_begin();
        if (bad[i].name) {
            gguf_writer_add_tensor(w, bad[i].name, bad[i].type, bad[i].n_dims, bad[i].ne, data);
        } else {
            gguf_writer_set_u32(w, bad[i].key, bad[i].value);
        }
        const enum vnpu_status st = gguf_writer_write(w, path);
        log_end();
        gguf_writer_free(w);
        if (st != VNPU_STATUS_BAD_ARG || log_buf.n_errors != 1 || !strstr(log_buf.text, bad[i].message)) {
            fail_msg("%s: status %d, log:\n%s", bad[i].what, st, log_buf.text);
        }
        assert_false(exists(path));
        assert_false(tmp_exists(path));
    }
}

/* A path that cannot be created: VNPU_STATUS_IO, one message, nothing left. */
static void test_unwritable_path(void **state) {
    (void) state;
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    gguf_writer_set_u32(w, "k", 1);
    const char *path = tmp_path("no-such-dir/out.gguf");
    log_begin();
    assert_int_equal(gguf_writer_write(w, path), VNPU_STATUS_IO);
    log_end();
    gguf_writer_free(w);
    assert_int_equal(log_buf.n_errors, 1);
    assert_non_null(strstr(log_buf.text, "cannot create"));
    assert_false(exists(path));
}

/* A write that fails half way (file size limit): the old file at the path is untouched and the temporary
 * is removed. Run in a child, whose limit does not touch the test process. */
static void test_failed_write_keeps_old_file(void **state) {
    (void) state;
    static uint8_t data[1 << 16];
    static const int64_t ne[] = {1 << 14};
    const char *path = tmp_path("kept.gguf");
    test_write_file(path, "old", 3);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const struct rlimit lim = {.rlim_cur = 4096, .rlim_max = 4096};
        signal(SIGXFSZ, SIG_IGN); /* fail the write with EFBIG instead of killing the child */
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) {
            _exit(2);
        }
        struct gguf_writer *w = gguf_writer_new();
        gguf_writer_add_tensor(w, "big", VNPU_TYPE_F32, 1, ne, data);
        const enum vnpu_status st = gguf_writer_write(w, path);
        gguf_writer_free(w);
        _exit(st == VNPU_STATUS_IO ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    size_t size = 0;
    char *text = test_read_file(path, &size);
    assert_non_null(text);
    assert_int_equal(size, 3);
    assert_memory_equal(text, "old", 3);
    free(text);
    assert_false(tmp_exists(path));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_valid_cases), cmocka_unit_test(test_copy_shared_models),
        cmocka_unit_test(test_setters),          cmocka_unit_test(test_bad_calls_write_nothing),
        cmocka_unit_test(test_unwritable_path),  cmocka_unit_test(test_failed_write_keeps_old_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
