/*
 * The Perfetto trace of the HTP devices (src/host/htp-trace-export.c): the file of a stories260K run on HTP0
 * (vnpu-cli, VNPU_TRACE) and of the quick op tests (vnpu-test-ops --trace) must be valid trace-event JSON
 * as Perfetto and chrome://tracing load it: {"traceEvents": [...]}, every event with its required fields,
 * process and thread names for every track, on each track timestamps that never go back and B/E events
 * that match by name and nest; the op spans on worker 0 cover every op the device executed (one per
 * VNPU_VERBOSE execute-op line) and every HVX_COMP span of worker 0 lies inside one.
 */
#include "test-common.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small JSON reader: enough to hold a trace ---- */

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_kind kind;
    double number;
    char *string;       /* JSON_STRING; for members of an object, the key is in key */
    char *key;          /* the member name when inside an object */
    struct json *items; /* JSON_ARRAY and JSON_OBJECT */
    size_t n_items;
};

struct json_reader {
    const char *p;
    bool ok;
};

static void json_ws(struct json_reader *r) {
    while (isspace((unsigned char) *r->p)) {
        r->p++;
    }
}

static char *json_read_string(struct json_reader *r) {
    if (*r->p != '"') {
        r->ok = false;
        return NULL;
    }
    r->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (r->ok && *r->p != '"') {
        char c = *r->p++;
        if (c == 0 || (unsigned char) c < 0x20) {
            r->ok = false;
            break;
        }
        if (c == '\\') {
            c = *r->p++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++) {
                    r->ok = r->ok && isxdigit((unsigned char) r->p[i]);
                }
                r->p += 4;
                c = '?';
            } else if (!strchr("\"\\/bfnrt", c)) {
                r->ok = false;
            }
        }
        if (n + 1 >= cap) {
            s = realloc(s, cap *= 2);
        }
        s[n++] = c;
    }
    s[n] = 0;
    r->p += r->ok;
    return s;
}

static void json_read(struct json_reader *r, struct json *v);

/* Items of an array or object until close; members carry their key. */
static void json_read_items(struct json_reader *r, struct json *v, char close, bool keyed) {
    size_t cap = 8;
    v->items = malloc(cap * sizeof(*v->items));
    r->p++;
    json_ws(r);
    if (*r->p == close) {
        r->p++;
        return;
    }
    while (r->ok) {
        if (v->n_items == cap) {
            v->items = realloc(v->items, (cap *= 2) * sizeof(*v->items));
        }
        struct json *item = &v->items[v->n_items++];
        memset(item, 0, sizeof(*item));
        json_ws(r);
        if (keyed) {
            item->key = json_read_string(r);
            json_ws(r);
            r->ok = r->ok && *r->p++ == ':';
        }
        json_read(r, item);
        json_ws(r);
        if (*r->p == ',') {
            r->p++;
        } else {
            r->ok = r->ok && *r->p++ == close;
            return;
        }
    }
}

static void json_read(struct json_reader *r, struct json *v) {
    json_ws(r);
    char *end;
    if (*r->p == '{') {
        v->kind = JSON_OBJECT;
        json_read_items(r, v, '}', true);
    } else if (*r->p == '[') {
        v->kind = JSON_ARRAY;
        json_read_items(r, v, ']', false);
    } else if (*r->p == '"') {
        v->kind = JSON_STRING;
        v->string = json_read_string(r);
    } else if (strncmp(r->p, "true", 4) == 0 || strncmp(r->p, "null", 4) == 0) {
        v->kind = *r->p == 't' ? JSON_BOOL : JSON_NULL;
        v->number = *r->p == 't';
        r->p += 4;
    } else if (strncmp(r->p, "false", 5) == 0) {
        v->kind = JSON_BOOL;
        r->p += 5;
    } else {
        v->kind = JSON_NUMBER;
        v->number = strtod(r->p, &end);
        r->ok = r->ok && end != r->p && isfinite(v->number);
        r->p = end;
    }
}

static void json_free(struct json *v) {
    for (size_t i = 0; i < v->n_items; i++) {
        json_free(&v->items[i]);
    }
    free(v->items);
    free(v->string);
    free(v->key);
}

static const struct json *json_get(const struct json *obj, const char *key) {
    for (size_t i = 0; obj->kind == JSON_OBJECT && i < obj->n_items; i++) {
        if (strcmp(obj->items[i].key, key) == 0) {
            return &obj->items[i];
        }
    }
    return NULL;
}

/* ---- the checks ---- */

#define MAX_TRACKS 64
#define MAX_DEPTH  32

struct track {
    int pid, tid;
    bool named;
    double last_ts;
    const char *stack[MAX_DEPTH]; /* open spans' names */
    const char *stack_cat[MAX_DEPTH];
    int depth;
};

static struct track *track_of(struct track *tracks, int *n, int pid, int tid) {
    for (int i = 0; i < *n; i++) {
        if (tracks[i].pid == pid && tracks[i].tid == tid) {
            return &tracks[i];
        }
    }
    assert_true(*n < MAX_TRACKS);
    tracks[*n] = (struct track){.pid = pid, .tid = tid, .last_ts = -INFINITY};
    return &tracks[(*n)++];
}

static const char *str_field(const struct json *e, const char *key) {
    const struct json *f = json_get(e, key);
    return f && f->kind == JSON_STRING ? f->string : NULL;
}

/* Check the trace at path; returns the number of op spans (cat "op") on worker tracks. */
static int check_trace(const char *path) {
    char *text = test_read_file(path, NULL);
    if (!text) {
        fail_msg("no trace written at %s", path);
    }
    struct json root = {0};
    struct json_reader r = {text, true};
    json_read(&r, &root);
    json_ws(&r);
    if (!r.ok || *r.p) {
        fail_msg("%s is not JSON (at byte %zu)", path, (size_t) (r.p - text));
    }
    const struct json *events = json_get(&root, "traceEvents");
    assert_non_null(events);
    assert_int_equal(events->kind, JSON_ARRAY);
    assert_true(events->n_items > 0);

    struct track tracks[MAX_TRACKS];
    int n_tracks = 0, n_ops = 0, n_comp = 0, named_pids[MAX_TRACKS], n_named_pids = 0;
    for (size_t i = 0; i < events->n_items; i++) {
        const struct json *e = &events->items[i];
        const char *name = str_field(e, "name"), *ph = str_field(e, "ph");
        const struct json *pid = json_get(e, "pid"), *tid = json_get(e, "tid"), *ts = json_get(e, "ts");
        if (!name || !ph || strlen(ph) != 1 || !pid || pid->kind != JSON_NUMBER) {
            fail_msg("event %zu lacks name, ph or pid", i);
        }
        if (*ph == 'M') {
            const struct json *args = json_get(e, "args");
            assert_non_null(args);
            assert_non_null(str_field(args, "name"));
            if (strcmp(name, "process_name") == 0) {
                named_pids[n_named_pids++] = (int) pid->number;
            } else {
                assert_string_equal(name, "thread_name");
                assert_true(tid && tid->kind == JSON_NUMBER);
                track_of(tracks, &n_tracks, (int) pid->number, (int) tid->number)->named = true;
            }
            continue;
        }
        if ((*ph != 'B' && *ph != 'E') || !tid || tid->kind != JSON_NUMBER || !ts || ts->kind != JSON_NUMBER) {
            fail_msg("event %zu ('%s'): ph '%s', tid or ts missing", i, name, ph);
        }
        struct track *t = track_of(tracks, &n_tracks, (int) pid->number, (int) tid->number);
        if (ts->number < t->last_ts) {
            fail_msg("event %zu ('%s') at %.3f goes back in time on track %d/%d (last %.3f)", i, name, ts->number,
                     t->pid, t->tid, t->last_ts);
        }
        t->last_ts = ts->number;
        if (*ph == 'B') {
            assert_true(t->depth < MAX_DEPTH);
            const char *cat = str_field(e, "cat");
            assert_non_null(cat);
            if (strcmp(name, "HVX_COMP") == 0 && t->tid == 0) {
                n_comp++;
                if (t->depth == 0 || strcmp(t->stack_cat[0], "op") != 0) {
                    fail_msg("event %zu: an HVX_COMP span on worker 0 outside any op span", i);
                }
            }
            n_ops += strcmp(cat, "op") == 0;
            t->stack_cat[t->depth] = cat;
            t->stack[t->depth++] = name;
        } else {
            if (t->depth == 0 || strcmp(t->stack[t->depth - 1], name) != 0) {
                fail_msg("event %zu: E '%s' does not close the open span '%s' on track %d/%d", i, name,
                         t->depth ? t->stack[t->depth - 1] : "(none)", t->pid, t->tid);
            }
            t->depth--;
        }
    }
    for (int i = 0; i < n_tracks; i++) {
        assert_int_equal(tracks[i].depth, 0);
        assert_true(tracks[i].named);
        bool pid_named = false;
        for (int k = 0; k < n_named_pids; k++) {
            pid_named = pid_named || named_pids[k] == tracks[i].pid;
        }
        assert_true(pid_named);
    }
    assert_true(n_comp > 0);
    json_free(&root);
    free(text);
    return n_ops;
}

static void test_trace_stories260k(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char path[4096];
    snprintf(path, sizeof(path), "%s/stories.json", test_tmpdir());
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_VERBOSE=1 VNPU_TRACE=%s %s/vnpu-cli -m %s -p 'Once upon a time' -n 16 --temp 0 "
                            "-t 2 --device HTP0",
                            path, test_tools_dir(), model);
    if (rc != 0) {
        fail_msg("vnpu-cli exited %d:\n%s", rc, err);
    }
    const int executed = test_count_lines(err, " execute-op ", NULL);
    const int spans = check_trace(path);
    printf("stories260K on HTP0: %d ops executed, %d op spans\n", executed, spans);
    assert_true(executed > 0);
    assert_int_equal(spans, executed);
    free(err);
}

static void test_trace_ops(void **state) {
    (void) state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/ops.json", test_tmpdir());
    char *out = NULL;
    const int rc = test_run(&out, NULL, "VNPU_NHVX=6 %s/vnpu-test-ops -q -b HTP0 --trace %s", test_tools_dir(), path);
    if (rc != 0) {
        fail_msg("vnpu-test-ops exited %d:\n%s", rc, out);
    }
    assert_true(check_trace(path) > 0);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_ops),
        cmocka_unit_test(test_trace_stories260k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
