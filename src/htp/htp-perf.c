/* The cost model's counts of an op: see htp-perf.h. */
#include "htp-perf.h"

#include "hex-common.h"

_Static_assert(HTP_PERF_HVX_CLASSES == HVX_CLASS_COUNT, "htp_thread_perf.hvx: one per enum hvx_class");
_Static_assert(HTP_PERF_HMX_OPS == HMX_OP_COUNT, "htp_thread_perf.hmx: one per enum hmx_op");
_Static_assert(HTP_PERF_MAX_SCOPES == HVX_MAX_SCOPES, "htp_perf_names: one per scope");

bool htp_perf_counting(void) {
#ifdef VNPU_HVX_COUNT
    return true;
#else
    return false;
#endif
}

void htp_perf_op_begin(struct htp_ctx *ctx) {
    for (uint32_t t = 0; t < ctx->n_threads; t++) {
        ctx->perf.counts[t] = (struct hvx_counts){0};
        ctx->perf.jobs[t] = 0;
        vdsp_dma_stats(ctx->dma[t].hw, &ctx->perf.dma0[t]);
    }
    hvx_counts_reset();
    ctx->wq.counts = ctx->perf.counts;
    ctx->wq.jobs = ctx->perf.jobs;
}

static uint32_t perf_u32(uint64_t v) {
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t) v;
}

/* c's HTP_PERF_SCOPES busiest scopes into out, the rest added to scope 0 (which is always kept). */
static void perf_scopes(const struct hvx_counts *c, struct htp_thread_perf *out) {
    uint64_t left[HVX_MAX_SCOPES];
    for (uint32_t s = 0; s < HVX_MAX_SCOPES; s++) {
        left[s] = c->scope[s];
    }
    uint64_t other = left[0];
    left[0] = 0;
    for (uint32_t k = 1; k < HTP_PERF_SCOPES; k++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < HVX_MAX_SCOPES; s++) {
            best = left[s] > left[best] ? s : best;
        }
        out->scope_id[k] = (uint8_t) best;
        out->scope_n[k] = perf_u32(left[best]);
        out->scope_trips[k] = left[best] ? perf_u32(c->trips[best]) : 0;
        left[best] = 0;
    }
    for (uint32_t s = 1; s < HVX_MAX_SCOPES; s++) {
        other += left[s];
    }
    out->scope_id[0] = 0;
    out->scope_n[0] = perf_u32(other);
    out->scope_trips[0] = 0;
}

void htp_perf_op_end(struct htp_ctx *ctx, struct htp_thread_perf *out) {
    ctx->wq.counts = NULL;
    ctx->wq.jobs = NULL;
    struct hvx_counts main_rest;
    hvx_counts_read(&main_rest);
    hvx_counts_add(&ctx->perf.counts[0], &main_rest);
    for (uint32_t t = 0; t < ctx->n_threads; t++) {
        const struct hvx_counts *c = &ctx->perf.counts[t];
        struct htp_thread_perf *o = &out[t];
        for (uint32_t i = 0; i < HVX_CLASS_COUNT; i++) {
            o->hvx[i] = perf_u32(c->hvx[i]);
        }
        for (uint32_t i = 0; i < HMX_OP_COUNT; i++) {
            o->hmx[i] = perf_u32(c->hmx[i]);
        }
        perf_scopes(c, o);
        struct vdsp_dma_stats now;
        vdsp_dma_stats(ctx->dma[t].hw, &now);
        const struct vdsp_dma_stats *was = &ctx->perf.dma0[t];
        o->dma_desc = perf_u32(now.descs - was->descs);
        o->jobs = ctx->perf.jobs[t];
        o->dma_to_vtcm = now.ddr_to_vtcm - was->ddr_to_vtcm;
        o->dma_to_ddr = now.vtcm_to_ddr - was->vtcm_to_ddr;
        o->dma_vtcm_to_vtcm = now.vtcm_to_vtcm - was->vtcm_to_vtcm;
    }
}

void htp_perf_names(struct htp_perf_names *out) {
    const uint32_t n = HEX_MIN(hvx_scope_count(), (uint32_t) HTP_PERF_MAX_SCOPES);
    out->n = n;
    for (uint32_t s = 0; s < n; s++) {
        const char *name = hvx_scope_name((uint8_t) s);
        uint32_t i = 0;
        for (; name && name[i] && i < HTP_PERF_NAME_LEN - 1; i++) {
            out->name[s][i] = name[i];
        }
        out->name[s][i] = 0;
    }
}
