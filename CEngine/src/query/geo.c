/*
 * geo.c — geospatial regions on the sphere: boxes, circles and polygons
 * checked as realm-core checks them (src/realm/geospatial.cpp, its S2
 * loops and polygons) and asked whether points lie within them.
 *
 * Owns: the prepared region (geo.h), the vector geometry of the unit
 * sphere it needs (points, great-circle arcs, crossings, turning angles),
 * the checks of a shape with realm-core's messages, and a shape's text.
 * Never: reads the database or knows what a property holds; never trusts
 * a shape (every coordinate is checked, NaN included, before it is used).
 *
 * Points are unit vectors: latitude phi and longitude theta in radians
 * give (cos theta cos phi, sin theta cos phi, sin phi), S2's ToPoint. A
 * polygon's ring becomes a loop of vectors, oriented so that its interior
 * lies to the left of each edge (det(a, b, p) > 0) and is the smaller of
 * the two regions the ring bounds (S2Loop::Normalize, by the sign of the
 * loop's turning angle). A point is within a loop when it lies on an edge,
 * or when the great-circle arc from a reference point just inside the loop
 * (beside the middle of an edge) to it crosses the loop's edges an even
 * number of times; an arc that touches a vertex cannot tell, and the test
 * is made again from another reference point.
 */
#include "geo.h"
#include "error.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* How many reference points (inside points beside edges) a loop keeps. */
#define GEO_REFS 8

typedef struct vec {
    double x, y, z;
} vec;

typedef struct geo_loop {
    vec *vertices; /* count vertices, the first not repeated at the end */
    size_t count;
    vec refs[GEO_REFS]; /* points strictly inside the loop */
    size_t ref_count;
} geo_loop;

struct geo_region {
    ce_geo_kind kind; /* CE_GEO_CIRCLE or CE_GEO_POLYGON (a box is made a polygon) */
    /* CE_GEO_CIRCLE: the squared chord length the cap reaches (4 sin^2(r/2)) */
    vec axis;
    double chord2;
    /* CE_GEO_POLYGON: loop 0 the outer ring, the others holes */
    geo_loop *loops;
    size_t loop_count;
};

/* ------------------------------------------------------------------------ */
/* Vectors                                                                   */
/* ------------------------------------------------------------------------ */

static vec vec_of(double latitude, double longitude)
{
    double phi = (pi / 180) * latitude, theta = (pi / 180) * longitude;
    double c = cos(phi);
    return (vec){cos(theta) * c, sin(theta) * c, sin(phi)};
}

static vec cross(vec a, vec b) { return (vec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static double dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double norm(vec a) { return sqrt(dot(a, a)); }
static vec add(vec a, vec b) { return (vec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static vec scale(vec a, double k) { return (vec){a.x * k, a.y * k, a.z * k}; }
static vec unit(vec a) { return scale(a, 1 / norm(a)); }
static bool same(vec a, vec b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
static double det(vec a, vec b, vec c) { return dot(cross(a, b), c); }
static int sign(double v) { return (v > 0) - (v < 0); }

/* A unit vector orthogonal to a (S2::Ortho's idea: cross with an axis a is
 * far from). */
static vec ortho(vec a)
{
    vec axis = fabs(a.x) <= fabs(a.y) && fabs(a.x) <= fabs(a.z) ? (vec){1, 0, 0}
               : fabs(a.y) <= fabs(a.z)                        ? (vec){0, 1, 0}
                                                               : (vec){0, 0, 1};
    return unit(cross(a, axis));
}

/* Whether p lies on the arc from a to b (ends included), within about
 * 1e-14 radians of its great circle. */
static bool on_edge(vec a, vec b, vec p)
{
    if (same(a, p) || same(b, p)) return true;
    vec n = cross(a, b);
    double length = norm(n);
    if (length == 0 || fabs(dot(n, p)) > 1e-14 * length) return false;
    return dot(cross(a, p), n) >= -1e-15 * length && dot(cross(p, b), n) >= -1e-15 * length;
}

/* Whether the arc r->p crosses the edge a->b at a point inside both: 1
 * yes, -1 no, 0 cannot tell (a vertex or r on the other arc's great
 * circle: the caller tries from elsewhere). `p_is_target`: p is the point
 * tested and lies on no edge, so p on the edge's great circle means the
 * circles meet at p (not on the edge) and at -p (not on the arc). */
static int crossing(vec a, vec b, vec r, vec p, bool p_is_target)
{
    int s_r = sign(det(a, b, r)), s_p = sign(det(a, b, p));
    int s_a = sign(det(r, p, a)), s_b = sign(det(r, p, b));
    if (s_r && s_p && s_r == s_p) return -1;
    if (s_a && s_b && s_a == s_b) return -1;
    if (s_p == 0 && p_is_target && s_a && s_b) return -1;
    if (!s_r || !s_p || !s_a || !s_b) return 0;
    /* Each arc straddles the other's great circle; they cross where they
     * meet, not at the antipode (S2EdgeUtil::SimpleCrossing's signs). */
    return s_r == s_b ? 1 : -1;
}

/* The exterior angle at b of the path a->b->c, positive for a left turn
 * (S2::TurnAngle). */
static double turn_angle(vec a, vec b, vec c)
{
    vec n1 = cross(a, b), n2 = cross(b, c);
    double angle = atan2(norm(cross(n1, n2)), dot(n1, n2));
    return det(a, b, c) > 0 ? angle : -angle;
}

/* ------------------------------------------------------------------------ */
/* Loops                                                                     */
/* ------------------------------------------------------------------------ */

static vec loop_vertex(const geo_loop *loop, size_t i) { return loop->vertices[i % loop->count]; }

static bool loop_on_boundary(const geo_loop *loop, vec p)
{
    for (size_t i = 0; i < loop->count; i++)
        if (on_edge(loop_vertex(loop, i), loop_vertex(loop, i + 1), p)) return true;
    return false;
}

/* The parity of the crossings of the arc r->p with the loop's edges: 1
 * odd, 0 even, -1 cannot tell. */
static int crossing_parity(const geo_loop *loop, vec r, vec p, bool p_is_target)
{
    int parity = 0;
    for (size_t i = 0; i < loop->count; i++) {
        int c = crossing(loop_vertex(loop, i), loop_vertex(loop, i + 1), r, p, p_is_target);
        if (c == 0) return -1;
        if (c > 0) parity ^= 1;
    }
    return parity;
}

/* Whether p lies strictly inside the loop (not on its boundary: the caller
 * tests that first). */
static bool loop_interior_contains(const geo_loop *loop, vec p)
{
    int parity = 0;
    for (size_t k = 0; k < loop->ref_count; k++) {
        vec r = loop->refs[k];
        if (dot(r, p) > -0.5) {
            parity = crossing_parity(loop, r, p, true);
        } else {
            /* Nearly opposite: by way of a point a quarter turn from both. */
            vec m = cross(r, p);
            m = norm(m) > 1e-6 ? unit(m) : ortho(r);
            int first = crossing_parity(loop, r, m, false), second = first < 0 ? -1 : crossing_parity(loop, m, p, true);
            parity = first < 0 || second < 0 ? -1 : first ^ second;
        }
        if (parity >= 0) return parity == 0;
    }
    return parity == 0; /* every reference point touched a vertex: the last count stands */
}

/* Points just inside the loop, beside the middle of some of its edges:
 * each one's short arc from the edge crosses no other edge. */
static void loop_find_refs(geo_loop *loop)
{
    size_t step = loop->count / GEO_REFS ? loop->count / GEO_REFS : 1;
    loop->ref_count = 0;
    for (size_t k = 0; k < loop->count && loop->ref_count < GEO_REFS; k += step) {
        vec a = loop_vertex(loop, k), b = loop_vertex(loop, k + 1);
        vec sum = add(a, b), n = cross(a, b);
        if (norm(sum) < 1e-9 || norm(n) < 1e-300) continue;
        vec middle = unit(sum), left = unit(n);
        double delta = 1e-7 * fmin(1.0, norm(n));
        for (int attempt = 0; attempt < 8; attempt++, delta /= 16) {
            vec r = unit(add(middle, scale(left, delta)));
            bool clear = sign(det(a, b, r)) > 0;
            for (size_t j = 0; clear && j < loop->count; j++) {
                if (j == k) continue;
                vec c = loop_vertex(loop, j), d = loop_vertex(loop, j + 1);
                clear = !on_edge(c, d, r) && crossing(c, d, middle, r, false) < 0;
            }
            if (clear) {
                loop->refs[loop->ref_count++] = r;
                break;
            }
        }
    }
    if (loop->ref_count == 0) {
        /* No edge has a clear side (a loop of hair-thin spikes): the first
         * edge's, unchecked. */
        vec a = loop_vertex(loop, 0), b = loop_vertex(loop, 1);
        loop->refs[0] = unit(add(unit(add(a, b)), scale(unit(cross(a, b)), 1e-12)));
        loop->ref_count = 1;
    }
}

/* Whether p lies within the loop (its boundary included). */
static bool loop_contains(const geo_loop *loop, vec p)
{
    return loop_on_boundary(loop, p) || loop_interior_contains(loop, p);
}

/* An edge in a sweep over z (the sine of the latitude): only edges whose
 * z ranges overlap can cross, so a ring's pairs of edges are not all
 * tested (realm-core's S2 indexes edges for the same reason). */
typedef struct sweep_edge {
    double low, high; /* the z range of the arc, widened by 1e-12 */
    size_t loop, index;
} sweep_edge;

static int sweep_order(const void *x, const void *y)
{
    const sweep_edge *a = x, *b = y;
    return (a->low > b->low) - (a->low < b->low);
}

/* The z range of the arc a->b: its ends', or the top or bottom of its great
 * circle when the arc passes there. */
static sweep_edge sweep_edge_of(vec a, vec b, size_t loop, size_t index)
{
    sweep_edge e = {fmin(a.z, b.z), fmax(a.z, b.z), loop, index};
    vec n = cross(a, b);
    double length = norm(n);
    if (length > 0) {
        vec unit_n = scale(n, 1 / length);
        vec top = {-unit_n.z * unit_n.x, -unit_n.z * unit_n.y, 1 - unit_n.z * unit_n.z};
        double top_length = norm(top);
        if (top_length > 0) {
            top = scale(top, 1 / top_length);
            vec bottom = scale(top, -1);
            if (dot(cross(a, top), n) >= 0 && dot(cross(top, b), n) >= 0) e.high = fmax(e.high, top.z);
            if (dot(cross(a, bottom), n) >= 0 && dot(cross(bottom, b), n) >= 0) e.low = fmin(e.low, bottom.z);
        }
    }
    e.low -= 1e-12;
    e.high += 1e-12;
    return e;
}

/* The first pair (in (loop, index) order) of edges of `loops` that
 * properly cross, among those `pair_allowed` lets through; false when none
 * does (or memory ran out: *out_failed). */
static bool first_crossing(const geo_loop *const *loops, size_t loop_count,
                           bool (*pair_allowed)(const sweep_edge *, const sweep_edge *, const geo_loop *const *),
                           sweep_edge *out_first, sweep_edge *out_second, bool *out_failed)
{
    size_t total = 0;
    for (size_t l = 0; l < loop_count; l++) total += loops[l]->count;
    *out_failed = false;
    sweep_edge *edges = malloc((total + 1) * sizeof *edges);
    if (!edges) {
        *out_failed = true;
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory checking a geospatial shape");
    }
    size_t n = 0;
    for (size_t l = 0; l < loop_count; l++)
        for (size_t i = 0; i < loops[l]->count; i++)
            edges[n++] = sweep_edge_of(loop_vertex(loops[l], i), loop_vertex(loops[l], i + 1), l, i);
    qsort(edges, n, sizeof *edges, sweep_order);
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n && edges[j].low <= edges[i].high; j++) {
            const sweep_edge *x = &edges[i], *y = &edges[j];
            if (x->loop > y->loop || (x->loop == y->loop && x->index > y->index)) {
                const sweep_edge *t = x;
                x = y;
                y = t;
            }
            if (!pair_allowed(x, y, loops)) continue;
            const geo_loop *lx = loops[x->loop], *ly = loops[y->loop];
            if (crossing(loop_vertex(lx, x->index), loop_vertex(lx, x->index + 1), loop_vertex(ly, y->index),
                         loop_vertex(ly, y->index + 1), false) <= 0)
                continue;
            if (!found || x->loop < out_first->loop || (x->loop == out_first->loop && x->index < out_first->index) ||
                (x->loop == out_first->loop && x->index == out_first->index &&
                 (y->loop < out_second->loop || (y->loop == out_second->loop && y->index < out_second->index)))) {
                *out_first = *x;
                *out_second = *y;
            }
            found = true;
        }
    }
    free(edges);
    return found;
}

/* Edges of one ring that do not share a vertex. */
static bool same_ring_apart(const sweep_edge *x, const sweep_edge *y, const geo_loop *const *loops)
{
    if (x->loop != y->loop) return false;
    size_t count = loops[x->loop]->count;
    return y->index >= x->index + 2 && !(x->index == 0 && y->index == count - 1);
}

static bool other_rings(const sweep_edge *x, const sweep_edge *y, const geo_loop *const *loops)
{
    (void)loops;
    return x->loop != y->loop;
}

/* Whether any edge of a properly crosses an edge of b (*out_failed: out of memory). */
static bool loops_cross(const geo_loop *a, const geo_loop *b, bool *out_failed)
{
    const geo_loop *both[2] = {a, b};
    sweep_edge first, second;
    return first_crossing(both, 2, other_rings, &first, &second, out_failed);
}

/* Whether loop `inner` lies within loop `outer` (*out_failed: out of memory). */
static bool loop_holds(const geo_loop *outer, const geo_loop *inner, bool *out_failed)
{
    if (loops_cross(outer, inner, out_failed) || *out_failed) return false;
    for (size_t i = 0; i < inner->count; i++)
        if (!loop_contains(outer, inner->vertices[i])) return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Checking and preparing a shape                                            */
/* ------------------------------------------------------------------------ */

static bool reason_of(char *reason, size_t size, const char *format, ...) CE_PRINTF(3, 4);
static bool reason_of(char *reason, size_t size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(reason, size, format, arguments);
    va_end(arguments);
    return false;
}

/* realm-core's coord_to_point check: "Longitude/latitude is out of
 * bounds" (NaN is out of bounds too). */
static bool check_point(ce_geo_point point, char *reason, size_t size)
{
    if (fabs(point.longitude) <= 180 && fabs(point.latitude) <= 90) return true;
    return reason_of(reason, size, "Longitude/latitude is out of bounds, lng: %g lat: %g", point.longitude, point.latitude);
}

/* The i-th point's altitude, NaN when it has none (realm-core's
 * GeoPoint::has_altitude). */
static double altitude_at(const double *altitudes, size_t i) { return altitudes ? altitudes[i] : NAN; }

/* realm-core's point_str: [longitude, latitude], and the altitude when the
 * point has one. */
static void describe_point(ce_geo_point point, double altitude, char *out, size_t size)
{
    if (isnan(altitude)) snprintf(out, size, "[%g, %g]", point.longitude, point.latitude);
    else snprintf(out, size, "[%g, %g, %g]", point.longitude, point.latitude, altitude);
}

typedef struct indexed_vertex {
    vec v;
    size_t index;
} indexed_vertex;

static int vertex_order(const void *x, const void *y)
{
    const indexed_vertex *a = x, *b = y;
    if (a->v.x != b->v.x) return a->v.x < b->v.x ? -1 : 1;
    if (a->v.y != b->v.y) return a->v.y < b->v.y ? -1 : 1;
    if (a->v.z != b->v.z) return a->v.z < b->v.z ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The first repeated vertex as S2Loop::IsValid finds it: the smallest
 * index j whose vertex appeared before, and that earlier index i. */
static bool find_duplicate(const vec *vertices, size_t n, size_t *out_i, size_t *out_j, bool *failed)
{
    indexed_vertex *sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted) {
        *failed = true;
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory checking a geospatial shape");
    }
    for (size_t i = 0; i < n; i++) sorted[i] = (indexed_vertex){vertices[i], i};
    qsort(sorted, n, sizeof *sorted, vertex_order);
    bool found = false;
    for (size_t k = 0; k < n;) {
        size_t end = k + 1;
        while (end < n && same(sorted[k].v, sorted[end].v)) end++;
        if (end - k >= 2 && (!found || sorted[k + 1].index < *out_j)) {
            *out_i = sorted[k].index;
            *out_j = sorted[k + 1].index;
            found = true;
        }
        k = end;
    }
    free(sorted);
    return found;
}

/* A ring's points as a loop (realm-core's parse_polygon_coordinates and
 * S2Loop::IsValid, then S2Loop::Normalize). */
static bool make_loop(const ce_geo_point *points, const double *altitudes, size_t count, size_t ring, geo_loop *loop,
                      char *reason, size_t size, bool *failed)
{
    for (size_t i = 0; i < count; i++)
        if (!check_point(points[i], reason, size)) return false;
    if (count == 0) return reason_of(reason, size, "Ring has no vertices");
    ce_geo_point first = points[0], last = points[count - 1];
    /* realm-core's GeoPoint ==: the altitudes too (both absent, or equal). */
    double first_altitude = altitude_at(altitudes, 0), last_altitude = altitude_at(altitudes, count - 1);
    bool same_altitude = (isnan(first_altitude) && isnan(last_altitude)) || first_altitude == last_altitude;
    if (first.longitude != last.longitude || first.latitude != last.latitude || !same_altitude) {
        char a[96], b[96];
        describe_point(first, first_altitude, a, sizeof a);
        describe_point(last, last_altitude, b, sizeof b);
        return reason_of(reason, size, "Ring is not closed, first vertex 'GeoPoint(%s)' does not equal last vertex 'GeoPoint(%s)'",
                         a, b);
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        vec v = vec_of(points[i].latitude, points[i].longitude);
        if (n == 0 || !same(loop->vertices[n - 1], v)) loop->vertices[n++] = v;
    }
    n--; /* the closing vertex */
    if (n < 3)
        return reason_of(reason, size, "Ring %zu must have at least 3 different vertices, %zu unique vertices were provided",
                         ring, n);
    loop->count = n;
    size_t first_duplicate = 0, second_duplicate = 0;
    if (!find_duplicate(loop->vertices, n, &first_duplicate, &second_duplicate, failed)) {
        if (*failed) return false;
    } else {
        return reason_of(reason, size, "Ring %zu is not valid: 'Duplicate vertices: %zu and %zu'", ring, first_duplicate,
                         second_duplicate);
    }
    const geo_loop *self[1] = {loop};
    sweep_edge x, y;
    if (first_crossing(self, 1, same_ring_apart, &x, &y, failed)) {
        double at[4][2];
        vec ends[4] = {loop_vertex(loop, x.index), loop_vertex(loop, x.index + 1), loop_vertex(loop, y.index),
                       loop_vertex(loop, y.index + 1)};
        for (int k = 0; k < 4; k++) {
            at[k][0] = atan2(ends[k].z, sqrt(ends[k].x * ends[k].x + ends[k].y * ends[k].y)) * (180 / pi);
            at[k][1] = atan2(ends[k].y, ends[k].x) * (180 / pi);
        }
        return reason_of(reason, size,
                         "Ring %zu is not valid: 'Edges %zu and %zu cross. Edge locations in degrees: "
                         "[%.7f, %.7f]-[%.7f, %.7f] and [%.7f, %.7f]-[%.7f, %.7f]'",
                         ring, x.index, y.index, at[0][0], at[0][1], at[1][0], at[1][1], at[2][0], at[2][1], at[3][0],
                         at[3][1]);
    }
    if (*failed) return false;
    double turning = 0;
    for (size_t i = 0; i < n; i++) turning += turn_angle(loop_vertex(loop, i + n - 1), loop_vertex(loop, i), loop_vertex(loop, i + 1));
    if (turning < -1e-14) {
        /* The left side is more than a hemisphere: the ring means the other. */
        for (size_t i = 0, j = n - 1; i < j; i++, j--) {
            vec t = loop->vertices[i];
            loop->vertices[i] = loop->vertices[j];
            loop->vertices[j] = t;
        }
    }
    loop_find_refs(loop);
    return true;
}

/* The checks of the rings together (realm-core's parse_polygon_coordinates
 * and S2Polygon::IsValid): holes inside the outer ring, no edge shared,
 * no two rings crossing, holes not nested. */
static bool check_rings(const geo_region *region, char *reason, size_t size)
{
    const geo_loop *loops = region->loops;
    bool failed = false;
    for (size_t i = 1; i < region->loop_count; i++)
        if (!loop_holds(&loops[0], &loops[i], &failed))
            return failed ? false : reason_of(reason, size,
                             "Secondary ring %zu not contained by first exterior ring - secondary rings must be holes in "
                             "the first ring",
                             i);
    for (size_t i = 1; i < region->loop_count; i++) {
        for (size_t j = 0; j < loops[i].count; j++) {
            vec a = loop_vertex(&loops[i], j), b = loop_vertex(&loops[i], j + 1);
            for (size_t k = 0; k < i; k++)
                for (size_t e = 0; e < loops[k].count; e++) {
                    vec c = loop_vertex(&loops[k], e), d = loop_vertex(&loops[k], e + 1);
                    if ((same(a, c) && same(b, d)) || (same(a, d) && same(b, c)))
                        return reason_of(reason, size,
                                         "Polygon isn't valid: 'Duplicate edge: ring %zu, edge %zu and ring %zu, edge %zu'",
                                         i, j, k, e);
                }
        }
    }
    for (size_t i = 1; i < region->loop_count; i++)
        for (size_t j = i + 1; j < region->loop_count; j++)
            if (loops_cross(&loops[i], &loops[j], &failed) || failed)
                return failed ? false : reason_of(reason, size, "Polygon isn't valid: 'Ring %zu crosses ring %zu'", i, j);
    for (size_t i = 1; i < region->loop_count; i++) {
        size_t shared = 0;
        for (size_t j = 0; j < loops[i].count; j++)
            for (size_t k = 0; k < loops[0].count; k++) shared += same(loops[i].vertices[j], loops[0].vertices[k]);
        if (shared > 1)
            return reason_of(reason, size,
                             "Polygon is not normalized: 'Ring %zu shares more than one vertex with its parent ring 0'", i);
    }
    /* Nesting, counted in S2's order: each hole of the outer ring, then
     * the holes inside it. */
    size_t position = 1;
    for (size_t i = 1; i < region->loop_count; i++) {
        bool nested = false;
        for (size_t k = 1; k < region->loop_count && !nested; k++) nested = k != i && loop_holds(&loops[k], &loops[i], &failed);
        if (failed) return false;
        if (nested) continue;
        position++;
        for (size_t j = 1; j < region->loop_count; j++)
            if (j != i && (loop_holds(&loops[i], &loops[j], &failed) || failed))
                return failed ? false : reason_of(reason, size, "Polygon interior rings cannot be nested: %zu", position);
    }
    return true;
}

/* realm-core's GeoBox::to_polygon: the ring (lo, [lo.lng, hi.lat], hi,
 * [hi.lng, lo.lat], lo), its edges great-circle arcs; the inversion rule
 * (a ring is the smaller region it bounds) makes the corners' order not
 * matter. The two added corners have no altitude. */
static ce_geo geo_box_polygon(const ce_geo *box, ce_geo_point ring[5], double altitudes[5], const size_t *size)
{
    ce_geo_point lo = box->corners[0], hi = box->corners[1];
    ring[0] = lo;
    ring[1] = (ce_geo_point){lo.longitude, hi.latitude};
    ring[2] = hi;
    ring[3] = (ce_geo_point){hi.longitude, lo.latitude};
    ring[4] = lo;
    double lo_altitude = altitude_at(box->altitudes, 0), hi_altitude = altitude_at(box->altitudes, 1);
    altitudes[0] = altitudes[4] = lo_altitude;
    altitudes[2] = hi_altitude;
    altitudes[1] = altitudes[3] = NAN;
    return (ce_geo){.kind = CE_GEO_POLYGON, .points = ring, .ring_sizes = size, .ring_count = 1, .altitudes = altitudes};
}

/* A box's polygon and what it points into. */
typedef struct geo_box_storage {
    ce_geo_point ring[5];
    double altitudes[5];
    size_t size;
    ce_geo polygon;
} geo_box_storage;

/* `shape` itself, or for a box the polygon through its corners, held in
 * `storage` (which must outlive the use of the result). */
static const ce_geo *geo_as_polygon(const ce_geo *shape, geo_box_storage *storage)
{
    if (shape->kind != CE_GEO_BOX) return shape;
    storage->size = 5;
    storage->polygon = geo_box_polygon(shape, storage->ring, storage->altitudes, &storage->size);
    return &storage->polygon;
}

bool geo_region_make(const ce_geo *shape, geo_region **out_region, char *reason, size_t reason_size)
{
    *out_region = NULL;
    if (reason_size) reason[0] = 0;
    geo_box_storage box;
    shape = geo_as_polygon(shape, &box);
    size_t loop_count = 0, vertex_count = 0;
    if (shape->kind == CE_GEO_POLYGON) {
        loop_count = shape->ring_count;
        if (loop_count == 0) return reason_of(reason, reason_size, "Polygon has no rings.");
        for (size_t i = 0; i < loop_count; i++) {
            if (shape->ring_sizes[i] > (SIZE_MAX / 2) / sizeof(vec) - vertex_count)
                return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory: a polygon of too many points");
            vertex_count += shape->ring_sizes[i];
        }
    } else if (shape->kind != CE_GEO_CIRCLE) {
        return reason_of(reason, reason_size, "not a geospatial shape (kind %d)", (int)shape->kind);
    }
    size_t bytes = sizeof(geo_region) + loop_count * sizeof(geo_loop) + vertex_count * sizeof(vec);
    geo_region *region = calloc(1, bytes);
    if (!region) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory preparing a geospatial shape");
    region->kind = shape->kind;
    bool ok = true, failed = false;
    switch (shape->kind) {
    case CE_GEO_CIRCLE: {
        ok = check_point(shape->center, reason, reason_size);
        if (!ok) break;
        double radius = shape->radius_radians;
        if (radius < 0 || isnan(radius)) {
            ok = reason_of(reason, reason_size, "The radius of a circle must be a non-negative number");
            break;
        }
        region->axis = vec_of(shape->center.latitude, shape->center.longitude);
        double d = sin(0.5 * radius);
        region->chord2 = radius >= pi ? 4 : 4 * d * d; /* S2Cap: height 2 d^2, contains |axis - p|^2 <= 2 height */
        break;
    }
    case CE_GEO_POLYGON: {
        region->loops = (geo_loop *)(void *)(region + 1);
        region->loop_count = loop_count;
        vec *vertices = (vec *)(void *)(region->loops + loop_count);
        const ce_geo_point *points = shape->points;
        const double *altitudes = shape->altitudes;
        for (size_t i = 0; ok && i < loop_count; i++) {
            region->loops[i].vertices = vertices;
            ok = make_loop(points, altitudes, shape->ring_sizes[i], i, &region->loops[i], reason, reason_size, &failed);
            points += shape->ring_sizes[i];
            if (altitudes) altitudes += shape->ring_sizes[i];
            vertices += shape->ring_sizes[i];
        }
        if (ok) ok = check_rings(region, reason, reason_size);
        break;
    }
    case CE_GEO_BOX: break; /* made a polygon above */
    }
    if (!ok) {
        free(region);
        if (failed && reason_size) reason[0] = 0; /* out of memory: the error is set */
        return false;
    }
    *out_region = region;
    return true;
}

bool geo_region_contains(const geo_region *region, double longitude, double latitude)
{
    /* realm-core's S2LatLng::is_valid (NaN fails it too). */
    if (!(fabs(longitude) <= 180 && fabs(latitude) <= 90)) return false;
    switch (region->kind) {
    case CE_GEO_CIRCLE: {
        vec p = vec_of(latitude, longitude);
        vec d = {region->axis.x - p.x, region->axis.y - p.y, region->axis.z - p.z};
        return dot(d, d) <= region->chord2;
    }
    case CE_GEO_POLYGON: {
        vec p = vec_of(latitude, longitude);
        if (!loop_contains(&region->loops[0], p)) return false;
        for (size_t i = 1; i < region->loop_count; i++)
            if (!loop_on_boundary(&region->loops[i], p) && loop_interior_contains(&region->loops[i], p)) return false;
        return true;
    }
    case CE_GEO_BOX: break; /* never: boxes are made polygons */
    }
    return false;
}

/* Appends to out (of `size` bytes, used so far `*used`), truncating. */
static void append(char *out, size_t size, size_t *used, const char *format, ...) CE_PRINTF(4, 5);
static void append(char *out, size_t size, size_t *used, const char *format, ...)
{
    if (*used + 1 >= size) return;
    va_list arguments;
    va_start(arguments, format);
    int n = vsnprintf(out + *used, size - *used, format, arguments);
    va_end(arguments);
    if (n > 0) *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

void geo_describe(const ce_geo *shape, char *out, size_t size)
{
    if (!size) return;
    size_t used = 0;
    out[0] = 0;
    char point[96];
    switch (shape->kind) {
    case CE_GEO_CIRCLE:
        describe_point(shape->center, altitude_at(shape->altitudes, 0), point, sizeof point);
        append(out, size, &used, "GeoCircle(%s, %g)", point, shape->radius_radians);
        return;
    case CE_GEO_BOX:
    case CE_GEO_POLYGON: {
        /* realm-core prints a box as its polygon. */
        geo_box_storage box;
        shape = geo_as_polygon(shape, &box);
        append(out, size, &used, "GeoPolygon(");
        size_t at = 0;
        for (size_t i = 0; i < shape->ring_count; i++) {
            append(out, size, &used, "%s{", i ? ", " : "");
            for (size_t j = 0; j < shape->ring_sizes[i]; j++, at++) {
                describe_point(shape->points[at], altitude_at(shape->altitudes, at), point, sizeof point);
                append(out, size, &used, "%s%s", j ? ", " : "", point);
            }
            append(out, size, &used, "}");
        }
        append(out, size, &used, ")");
        return;
    }
    }
    append(out, size, &used, "NULL");
}
