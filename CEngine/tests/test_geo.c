/*
 * test_geo.c — geospatial queries: the regions of geo.c on their own
 * (boxes, circles and polygons, near the poles and across the
 * antimeridian, edges, holes, the checks and their messages), then
 * `geoWithin` and `IN` through the query engine on embedded objects of
 * Realm's point shape.
 *
 * Owns: the cases on geo.c and on GEOWITHIN predicates.
 * Never: asks the engine what should match: every expectation is worked
 * out by hand in the comment beside it (angles in radians, 1 degree =
 * 0.0174533).
 */
#include "cengine.h"
#include "geo.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Regions                                                                   */
/* ------------------------------------------------------------------------ */

static geo_region *region_of(const ce_geo *shape)
{
    geo_region *region;
    char reason[512];
    if (!geo_region_make(shape, &region, reason, sizeof reason)) {
        fprintf(stderr, "invalid shape: %s\n", reason);
        exit(1);
    }
    return region;
}

/* The reason a shape is refused (the test fails if it is accepted). */
static const char *refusal(const ce_geo *shape)
{
    static char reason[512];
    geo_region *region;
    CHECK(!geo_region_make(shape, &region, reason, sizeof reason));
    CHECK(region == NULL && reason[0] != 0);
    return reason;
}

#define IN(region, lng, lat) CHECK(geo_region_contains((region), (lng), (lat)))
#define OUT(region, lng, lat) CHECK(!geo_region_contains((region), (lng), (lat)))

static ce_geo box(double lng0, double lat0, double lng1, double lat1)
{
    return (ce_geo){.kind = CE_GEO_BOX, .corners = {{lng0, lat0}, {lng1, lat1}}};
}

static ce_geo circle(double lng, double lat, double radius)
{
    return (ce_geo){.kind = CE_GEO_CIRCLE, .center = {lng, lat}, .radius_radians = radius};
}

static ce_geo polygon(const ce_geo_point *points, const size_t *sizes, size_t rings)
{
    return (ce_geo){.kind = CE_GEO_POLYGON, .points = points, .ring_sizes = sizes, .ring_count = rings};
}

TEST(box_is_the_polygon_through_its_corners)
{
    /* realm-core's GeoBox::to_polygon: the ring (lo, [lo.lng, hi.lat], hi,
     * [hi.lng, lo.lat], lo) with great-circle edges, not a rectangle of
     * latitudes and longitudes. */
    ce_geo shape = box(0, 0, 10, 10);
    geo_region *r = region_of(&shape);
    IN(r, 5, 5);
    IN(r, 0, 0);   /* a corner */
    IN(r, 10, 10); /* the other */
    IN(r, 0, 5);   /* on the west edge, a meridian */
    IN(r, 5, 0);   /* on the south edge, the equator */
    OUT(r, 10.0001, 5);
    OUT(r, 5, -0.0001);
    /* The north edge is the great circle from (0, 10) to (10, 10), which
     * reaches atan(tan 10 / cos 5) = 10.038 at lng 5: (5, 10.02) is within,
     * though north of the parallel 10 (a rectangle would leave it out). */
    IN(r, 5, 10.02);
    OUT(r, 5, 10.05);
    OUT(r, -175, 5);
    /* The same as the polygon through the corners, point for point. */
    static const ce_geo_point ring[] = {{0, 0}, {0, 10}, {10, 10}, {10, 0}, {0, 0}};
    size_t sizes[] = {5};
    ce_geo same = polygon(ring, sizes, 1);
    geo_region *q = region_of(&same);
    for (double lng = -1; lng <= 11; lng += 0.25)
        for (double lat = -1; lat <= 11; lat += 0.01)
            CHECK(geo_region_contains(r, lng, lat) == geo_region_contains(q, lng, lat));
    free(q);
    free(r);
    /* The corners in any order give the same (smaller) region: a box whose
     * bottom-left corner is north of, or east of, its top-right one is
     * the same square, not an error or the band the long way round. */
    ce_geo upside_down = box(0, 10, 10, 0), east_first = box(10, 0, 0, 10);
    geo_region *regions[] = {region_of(&upside_down), region_of(&east_first)};
    for (int k = 0; k < 2; k++) {
        IN(regions[k], 5, 5);
        IN(regions[k], 5, 10.02);
        OUT(regions[k], -175, 5);
        OUT(regions[k], 15, 5);
        free(regions[k]);
    }
}

TEST(box_across_the_antimeridian_and_near_a_pole)
{
    /* The bottom-left corner east of the top-right one: the 20 degrees
     * across the antimeridian (the smaller region), edges great circles. */
    ce_geo across = box(170, -10, -170, 10);
    geo_region *r = region_of(&across);
    IN(r, 180, 0);
    IN(r, -180, 0);
    IN(r, 175, 5);
    IN(r, -175, -5);
    IN(r, -170, 10);
    IN(r, 180, 10.1); /* the north edge bulges to 10.15 at the antimeridian */
    OUT(r, 0, 0);
    OUT(r, 169.9, 0);
    OUT(r, -169.9, 0);
    free(r);
    /* Near the pole the north edge, from (-10, 80) to (10, 80), passes
     * atan(tan 80 / cos 10) = atan(5.6713 / 0.98481) = 80.149 at lng 0. */
    ce_geo polar = box(-10, 70, 10, 80);
    r = region_of(&polar);
    IN(r, 0, 75);
    IN(r, 0, 80.14);
    OUT(r, 0, 80.16);
    OUT(r, 0, 90);
    free(r);
}

TEST(box_checks)
{
    ce_geo out_of_bounds = box(181, 0, 10, 10);
    CHECK(strcmp(refusal(&out_of_bounds), "Longitude/latitude is out of bounds, lng: 181 lat: 0") == 0);
    /* The corners in the ring's order: lo, then [lo.lng, hi.lat]. */
    ce_geo too_far_north = box(0, 0, 10, 90.5);
    CHECK(strcmp(refusal(&too_far_north), "Longitude/latitude is out of bounds, lng: 0 lat: 90.5") == 0);
    ce_geo not_a_number = box(0, NAN, 10, 10);
    CHECK(strncmp(refusal(&not_a_number), "Longitude/latitude is out of bounds, lng: 0 lat: ", 49) == 0);
    /* Corners on one parallel or meridian: a ring of 2 different points. */
    ce_geo flat = box(0, 0, 10, 0);
    CHECK(strcmp(refusal(&flat), "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided") == 0);
    ce_geo thin = box(3, 0, 3, 10);
    CHECK(strcmp(refusal(&thin), "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided") == 0);
    ce_geo dot = box(3, 4, 3, 4);
    CHECK(strcmp(refusal(&dot), "Ring 0 must have at least 3 different vertices, 0 unique vertices were provided") == 0);
}

TEST(points_out_of_range_lie_nowhere)
{
    /* realm-core refuses an invalid S2LatLng: a point past the ranges is in
     * no shape, not where S2 would put it (longitude 190 is not -170). */
    ce_geo west = box(-175, -5, -165, 5);
    ce_geo everywhere = circle(0, 0, 4); /* more than pi: the whole sphere */
    static const ce_geo_point ring[] = {{-175, -5}, {-165, -5}, {-165, 5}, {-175, 5}, {-175, -5}};
    size_t sizes[] = {5};
    ce_geo around = polygon(ring, sizes, 1);
    geo_region *regions[] = {region_of(&west), region_of(&everywhere), region_of(&around)};
    for (int i = 0; i < 3; i++) {
        IN(regions[i], -170, 0);
        IN(regions[i], -170, 0.5);
        OUT(regions[i], 190, 0);
        OUT(regions[i], -170, 180.5); /* past the pole */
        OUT(regions[i], -170, 90.0001);
        OUT(regions[i], -180.0001, 0);
        OUT(regions[i], NAN, 0);
        OUT(regions[i], -170, NAN);
        OUT(regions[i], INFINITY, 0);
        free(regions[i]);
    }
    /* The ranges' ends are in range. */
    geo_region *r = region_of(&everywhere);
    IN(r, 180, 90);
    IN(r, -180, -90);
    free(r);
}

TEST(circle_radius_is_an_angle_along_the_sphere)
{
    /* Radius 0.1 rad = 5.7296 degrees. */
    ce_geo c = circle(0, 0, 0.1);
    geo_region *r = region_of(&c);
    IN(r, 0, 0);
    IN(r, 5, 0);     /* 5 degrees = 0.0873 */
    OUT(r, 6, 0);    /* 0.1047 */
    IN(r, 0, 5.7);   /* 0.0995 */
    OUT(r, 0, 5.75); /* 0.1004 */
    IN(r, 4, 4);     /* cos d = cos 4 cos 4 = 0.99513: d = 0.0988 */
    OUT(r, 4.1, 4.1); /* cos d = cos^2 4.1 = 0.99489: d = 0.1012 */
    free(r);
    /* Around the north pole: the distance is 90 - latitude, whatever the longitude. */
    ce_geo pole = circle(0, 90, 0.1);
    r = region_of(&pole);
    IN(r, 123, 84.5);  /* 5.5 degrees = 0.0960 */
    IN(r, -60, 84.5);
    OUT(r, 45, 84.2);  /* 5.8 degrees = 0.1012 */
    free(r);
    /* Across the antimeridian: radius 0.05 = 2.8648 degrees. */
    ce_geo dateline = circle(179, 0, 0.05);
    r = region_of(&dateline);
    IN(r, -179, 0); /* 2 degrees */
    IN(r, 180, 1);
    OUT(r, -177, 0); /* 4 degrees */
    OUT(r, 175, 0);  /* 4 degrees */
    free(r);
    /* Radius 0: the centre alone; pi or more: the whole sphere. */
    ce_geo point = circle(10, 10, 0);
    r = region_of(&point);
    IN(r, 10, 10);
    OUT(r, 10, 10.000001);
    free(r);
    ce_geo everything = circle(10, 10, 3.2);
    r = region_of(&everything);
    IN(r, -170, -10); /* the antipode */
    free(r);
}

TEST(circle_checks)
{
    ce_geo negative = circle(0, 0, -0.1);
    CHECK(strcmp(refusal(&negative), "The radius of a circle must be a non-negative number") == 0);
    ce_geo nan_radius = circle(0, 0, NAN);
    CHECK(strcmp(refusal(&nan_radius), "The radius of a circle must be a non-negative number") == 0);
    ce_geo off = circle(0, -91, 0.1);
    CHECK(strcmp(refusal(&off), "Longitude/latitude is out of bounds, lng: 0 lat: -91") == 0);
}

static const ce_geo_point square[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}};
static const ce_geo_point square_clockwise[] = {{0, 0}, {0, 10}, {10, 10}, {10, 0}, {0, 0}};

TEST(polygon_edges_are_great_circles)
{
    size_t sizes[] = {5};
    for (int orientation = 0; orientation < 2; orientation++) {
        /* Either orientation means the smaller region: the square. */
        ce_geo shape = polygon(orientation ? square_clockwise : square, sizes, 1);
        geo_region *r = region_of(&shape);
        IN(r, 5, 5);
        OUT(r, 15, 5);
        OUT(r, -5, 5);
        OUT(r, -175, -5); /* the antipode of the centre */
        IN(r, 5, 0);      /* on the south edge (the equator) */
        IN(r, 0, 5);      /* on the west edge (a meridian) */
        IN(r, 10, 10);    /* a vertex */
        /* The north edge is the great circle from (10, 10) to (0, 10): at
         * lng 5 it reaches atan(tan 10 / cos 5) = 10.038. */
        IN(r, 5, 10.02);
        OUT(r, 5, 10.05);
        IN(r, 0.5, 10.002); /* near the vertex the edge is still above: atan(tan 10 cos 4.5 / cos 5) */
        OUT(r, -0.001, 5);
        free(r);
    }
}

TEST(polygon_around_a_pole_and_across_the_antimeridian)
{
    /* Four vertices at latitude 80, 90 degrees apart: the pole inside, the
     * edges great circles that reach atan(tan 80 / cos 45) = 82.9 midway. */
    static const ce_geo_point ring[] = {{0, 80}, {90, 80}, {180, 80}, {-90, 80}, {0, 80}};
    size_t sizes[] = {5};
    ce_geo shape = polygon(ring, sizes, 1);
    geo_region *r = region_of(&shape);
    IN(r, 0, 90);
    IN(r, 45, 83.5);
    OUT(r, 45, 82);
    IN(r, 0, 81);
    OUT(r, 0, 79);
    IN(r, -135, 85);
    free(r);
    static const ce_geo_point across[] = {{170, -10}, {-170, -10}, {-170, 10}, {170, 10}, {170, -10}};
    shape = polygon(across, sizes, 1);
    r = region_of(&shape);
    IN(r, 180, 0);
    IN(r, -180, 0);
    IN(r, -175, 5);
    IN(r, 175, -5);
    OUT(r, 0, 0);
    OUT(r, 165, 0);
    free(r);
}

TEST(polygon_holes)
{
    static const ce_geo_point rings[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0},
                                         {4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4},
                                         {7, 1}, {9, 1}, {8, 3}, {7, 1}};
    size_t sizes[] = {5, 5, 4};
    ce_geo shape = polygon(rings, sizes, 3);
    geo_region *r = region_of(&shape);
    OUT(r, 5, 5);     /* in the first hole */
    OUT(r, 4.5, 4.5);
    IN(r, 3, 3);
    IN(r, 4, 5);      /* on the hole's edge: the polygon is closed */
    IN(r, 6, 6);      /* a hole's vertex */
    OUT(r, 8, 2);     /* in the triangle */
    IN(r, 8, 0.5);
    IN(r, 9.5, 9.5);
    OUT(r, 11, 5);
    free(r);
}

TEST(polygon_checks)
{
    size_t one[] = {5};
    static const ce_geo_point open_ring[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 10}};
    ce_geo shape = polygon(open_ring, one, 1);
    CHECK(strcmp(refusal(&shape), "Ring is not closed, first vertex 'GeoPoint([0, 0])' does not equal last vertex 'GeoPoint([0, 10])'") == 0);
    static const ce_geo_point two_unique[] = {{0, 0}, {1, 1}, {0, 0}, {0, 0}};
    size_t four[] = {4};
    shape = polygon(two_unique, four, 1);
    CHECK(strcmp(refusal(&shape), "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided") == 0);
    static const ce_geo_point bowtie[] = {{0, 0}, {10, 10}, {10, 0}, {0, 10}, {0, 0}};
    shape = polygon(bowtie, one, 1);
    CHECK(strncmp(refusal(&shape), "Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations in degrees: ", 70) == 0);
    static const ce_geo_point twice[] = {{0, 0}, {5, 5}, {10, 0}, {10, 10}, {5, 5}, {0, 10}, {0, 0}};
    size_t seven[] = {7};
    shape = polygon(twice, seven, 1);
    CHECK(strcmp(refusal(&shape), "Ring 0 is not valid: 'Duplicate vertices: 1 and 4'") == 0);
    static const ce_geo_point far_lat[] = {{0, 0}, {10, 0}, {10, 95}, {0, 0}};
    shape = polygon(far_lat, four, 1);
    CHECK(strcmp(refusal(&shape), "Longitude/latitude is out of bounds, lng: 10 lat: 95") == 0);
    shape = polygon(square, one, 0);
    CHECK(strcmp(refusal(&shape), "Polygon has no rings.") == 0);

    size_t two[] = {5, 4};
    static const ce_geo_point outside[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}, {20, 20}, {21, 20}, {21, 21}, {20, 20}};
    shape = polygon(outside, two, 2);
    CHECK(strcmp(refusal(&shape),
                 "Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring") == 0);
    size_t three[] = {5, 5, 5};
    static const ce_geo_point crossing_holes[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}, {2, 2}, {6, 2}, {6, 6},
                                                  {2, 6}, {2, 2}, {4, 4}, {8, 4}, {8, 8}, {4, 8}, {4, 4}};
    shape = polygon(crossing_holes, three, 3);
    CHECK(strcmp(refusal(&shape), "Polygon isn't valid: 'Ring 1 crosses ring 2'") == 0);
    static const ce_geo_point nested[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}, {1, 1}, {9, 1}, {9, 9},
                                          {1, 9}, {1, 1}, {4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}};
    shape = polygon(nested, three, 3);
    CHECK(strcmp(refusal(&shape), "Polygon interior rings cannot be nested: 2") == 0);
    size_t same[] = {5, 5};
    static const ce_geo_point shared[] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}, {0, 0}, {10, 0}, {5, 5}, {2, 6}, {0, 0}};
    shape = polygon(shared, same, 2);
    CHECK(strcmp(refusal(&shape), "Polygon isn't valid: 'Duplicate edge: ring 1, edge 0 and ring 0, edge 0'") == 0);
}

TEST(large_rings_and_the_first_fault)
{
    /* 20000 vertices on a circle of 10 degrees around (0, 0): checked by a
     * sweep over latitude, not pair by pair. */
    enum { N = 20000 };
    ce_geo_point *ring = malloc((N + 1) * sizeof *ring);
    for (size_t i = 0; i < N; i++) {
        double angle = 2 * 3.14159265358979323846 * (double)i / N;
        ring[i] = (ce_geo_point){10 * cos(angle), 10 * sin(angle)};
    }
    ring[N] = ring[0];
    size_t sizes[] = {N + 1};
    ce_geo shape = polygon(ring, sizes, 1);
    geo_region *r = region_of(&shape);
    IN(r, 0, 0);
    IN(r, 9.9, 0);
    OUT(r, 10.1, 0);
    OUT(r, 0, 15);
    free(r);
    /* Vertices 100 and 200 swapped: edge 99 is now the chord v99-v200 and
     * edge 200 the chord v100-v201; on the circle v99 < v100 < v200 < v201,
     * so they cross (edge 199, v199-v100, nests inside edge 99 and does
     * not). The first crossing pair in ring order is reported. */
    ce_geo_point saved = ring[100];
    ring[100] = ring[200];
    ring[200] = saved;
    CHECK(strncmp(refusal(&shape), "Ring 0 is not valid: 'Edges 99 and 200 cross.", 45) == 0);
    ring[200] = ring[100];
    ring[100] = saved;
    /* Vertices 7 and 3000 repeat 5 and 9 (the smallest later index first). */
    ring[3000] = ring[9];
    ring[7] = ring[5];
    CHECK(strcmp(refusal(&shape), "Ring 0 is not valid: 'Duplicate vertices: 5 and 7'") == 0);
    free(ring);
}

TEST(shapes_as_realm_core_prints_them)
{
    char text[256];
    ce_geo b = box(-122.5, 37.5, -122, 38);
    geo_describe(&b, text, sizeof text);
    CHECK(strcmp(text, "GeoPolygon({[-122.5, 37.5], [-122.5, 38], [-122, 38], [-122, 37.5], [-122.5, 37.5]})") == 0);
    ce_geo c = circle(1, 2, 0.25);
    geo_describe(&c, text, sizeof text);
    CHECK(strcmp(text, "GeoCircle([1, 2], 0.25)") == 0);
    static const ce_geo_point rings[] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {0.2, 0.1}, {0.8, 0.1}, {0.7, 0.2}, {0.2, 0.1}};
    size_t sizes[] = {4, 4};
    ce_geo p = polygon(rings, sizes, 2);
    geo_describe(&p, text, sizeof text);
    CHECK(strcmp(text, "GeoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]}, {[0.2, 0.1], [0.8, 0.1], [0.7, 0.2], [0.2, 0.1]})") == 0);
    char small[12];
    geo_describe(&p, small, sizeof small);
    CHECK(strlen(small) == 11);
}

TEST(altitudes_are_printed_and_close_rings)
{
    char text[256];
    /* realm-core's point_str: a point with an altitude prints it. */
    static const double center_altitude[] = {0};
    ce_geo c = circle(1, 2, 0.25);
    c.altitudes = center_altitude;
    geo_describe(&c, text, sizeof text);
    CHECK(strcmp(text, "GeoCircle([1, 2, 0], 0.25)") == 0);
    /* A box's own corners keep theirs; the two added corners have none. */
    static const double corner_altitudes[] = {5, 7};
    ce_geo b = box(0, 0, 1, 1);
    b.altitudes = corner_altitudes;
    geo_describe(&b, text, sizeof text);
    CHECK(strcmp(text, "GeoPolygon({[0, 0, 5], [0, 1], [1, 1, 7], [1, 0], [0, 0, 5]})") == 0);
    /* NaN is no altitude. */
    static const double ring_altitudes[] = {1.5, NAN, 2, 1.5};
    static const ce_geo_point points[] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}};
    size_t sizes[] = {4};
    ce_geo p = polygon(points, sizes, 1);
    p.altitudes = ring_altitudes;
    geo_describe(&p, text, sizeof text);
    CHECK(strcmp(text, "GeoPolygon({[0, 0, 1.5], [1, 0], [1, 1, 2], [0, 0, 1.5]})") == 0);
    geo_region *r = region_of(&p); /* altitudes play no part in containment */
    IN(r, 0.6, 0.3);
    free(r);
    /* A ring whose ends differ only in altitude is not closed (GeoPoint ==). */
    static const double open_altitudes[] = {1, 1, 1, 2};
    p.altitudes = open_altitudes;
    CHECK(strcmp(refusal(&p), "Ring is not closed, first vertex 'GeoPoint([0, 0, 1])' does not equal last vertex "
                              "'GeoPoint([0, 0, 2])'") == 0);
    static const double one_sided[] = {1, 1, 1, NAN};
    p.altitudes = one_sided;
    CHECK(strcmp(refusal(&p), "Ring is not closed, first vertex 'GeoPoint([0, 0, 1])' does not equal last vertex "
                              "'GeoPoint([0, 0])'") == 0);
    /* The altitudes of a hole follow the outer ring's. */
    static const ce_geo_point holed[] = {{0, 0}, {10, 0}, {10, 10}, {0, 0}, {6, 2}, {8, 2}, {8, 4}, {6, 2}};
    static const double holed_altitudes[] = {0, 0, 0, 0, 3, 3, 3, 4};
    size_t holed_sizes[] = {4, 4};
    ce_geo h = polygon(holed, holed_sizes, 2);
    h.altitudes = holed_altitudes;
    CHECK(strcmp(refusal(&h), "Ring is not closed, first vertex 'GeoPoint([6, 2, 3])' does not equal last vertex "
                              "'GeoPoint([6, 2, 4])'") == 0);
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct places {
    test_db t;
    ce_table_key place, location, shop;
    ce_column_key name, where, wheres, store, type, coordinates;
} places;

static ce_value text_value(const char *text) { return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}}; }

static void set_point(ce_txn *txn, places *p, ce_object_key embedded, const char *type, const double *coordinates,
                      size_t count)
{
    ce_value t = text_value(type);
    CHECK(ce_object_set(txn, p->location, embedded, p->type, &t));
    ce_collection *list;
    CHECK(ce_collection_open(txn, p->location, embedded, p->coordinates, &list));
    CHECK(ce_collection_clear(list));
    for (size_t i = 0; i < count; i++) {
        ce_value v = {.type = CE_TYPE_DOUBLE, .double_value = coordinates[i]};
        CHECK(ce_list_insert(list, i, &v));
    }
    ce_collection_close(list);
}

/* A place with a location (type NULL: none), and points in its list. */
static ce_object_key add_place(ce_txn *txn, places *p, const char *name, const char *type, const double *coordinates,
                               size_t count, const double (*list)[2], size_t list_count)
{
    ce_object_key object, embedded;
    ce_value n = text_value(name);
    CHECK(ce_object_create(txn, p->place, NULL, &object) && ce_object_set(txn, p->place, object, p->name, &n));
    if (type) {
        CHECK(ce_object_create_embedded(txn, p->place, object, p->where, &embedded));
        set_point(txn, p, embedded, type, coordinates, count);
    }
    ce_collection *wheres;
    CHECK(ce_collection_open(txn, p->place, object, p->wheres, &wheres));
    for (size_t i = 0; i < list_count; i++) {
        CHECK(ce_list_insert_embedded(wheres, i, &embedded));
        set_point(txn, p, embedded, "Point", list[i], 2);
    }
    ce_collection_close(wheres);
    return object;
}

static places places_open(void)
{
    places p;
    p.t = test_db_open("geo");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(p.t.db, &txn));
    CHECK(ce_table_add_embedded(txn, "Location", &p.location) && ce_table_add(txn, "Place", &p.place) &&
          ce_table_add(txn, "Shop", &p.shop));
    ce_property_info infos[] = {
        {.name = "type", .type = CE_TYPE_STRING},
        {.name = "coordinates", .type = CE_TYPE_DOUBLE, .collection = CE_COLLECTION_LIST},
    };
    CHECK(ce_property_add(txn, p.location, &infos[0], &p.type) && ce_property_add(txn, p.location, &infos[1], &p.coordinates));
    ce_column_key unused;
    CHECK(ce_property_add(txn, p.shop, &infos[0], &unused) && ce_property_add(txn, p.shop, &infos[1], &unused));
    ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    ce_property_info where = {.name = "location", .type = CE_TYPE_LINK, .nullable = true, .link_target = p.location};
    ce_property_info wheres = {.name = "locations", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                               .link_target = p.location};
    ce_property_info store = {.name = "shop", .type = CE_TYPE_LINK, .nullable = true, .link_target = p.shop};
    CHECK(ce_property_add(txn, p.place, &name, &p.name) && ce_property_add(txn, p.place, &where, &p.where) &&
          ce_property_add(txn, p.place, &wheres, &p.wheres) && ce_property_add(txn, p.place, &store, &p.store));
    /* Coordinates are [longitude, latitude]. */
    static const double a[] = {5, 5}, b[] = {15, 5}, d[] = {5}, e[] = {5, 5, 100}, f[] = {175, 0};
    static const double inside[][2] = {{1, 1}, {2, 2}}, mixed[][2] = {{1, 1}, {50, 50}}, outside[][2] = {{50, 50}};
    add_place(txn, &p, "A", "Point", a, 2, inside, 2);
    add_place(txn, &p, "B", "Point", b, 2, mixed, 2);
    add_place(txn, &p, "C", NULL, NULL, 0, outside, 1);   /* no location */
    add_place(txn, &p, "D", "Point", d, 1, NULL, 0);      /* one coordinate: no point */
    add_place(txn, &p, "E", "point", e, 3, NULL, 0);      /* any case; the altitude ignored */
    add_place(txn, &p, "F", "Point", f, 2, NULL, 0);
    CHECK(ce_txn_commit(txn));
    ce_txn_end(txn);
    return p;
}

static bool query_count(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                        size_t n, size_t *out)
{
    ce_query *query;
    if (!ce_query_parse(txn, table, predicate, arguments, n, &query)) return false;
    bool ok = ce_query_count(query, txn, out);
    ce_query_free(query);
    return ok;
}

static size_t count_of(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments, size_t n)
{
    size_t count;
    if (!query_count(txn, table, predicate, arguments, n, &count)) {
        fprintf(stderr, "'%s': %s\n", predicate, ce_last_error_message());
        exit(1);
    }
    return count;
}

#define EXPECT(txn, table, predicate, expected) CHECK(count_of((txn), (table), (predicate), NULL, 0) == (expected))

/* The query fails, with a message that contains `words`. */
static void expect_error(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                         size_t n, const char *words)
{
    size_t count;
    CHECK(!query_count(txn, table, predicate, arguments, n, &count));
    if (!strstr(ce_last_error_message(), words)) {
        fprintf(stderr, "'%s': '%s' lacks '%s'\n", predicate, ce_last_error_message(), words);
        exit(1);
    }
}

TEST(geo_within_literal_shapes)
{
    places p = places_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    /* A (5, 5) and E (5, 5): B is at 15, C has no location, D no point, F at 175. */
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [10, 10])", 2);
    EXPECT(txn, p.place, "location GEOWITHIN GEOBOX([0.0, 0.0], [10.0, 10.0])", 2);
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [20, 10])", 3);
    EXPECT(txn, p.place, "location geoWithin geoBox([170, -10], [-170, 10])", 1); /* F, across the antimeridian */
    /* A box's north edge is a great circle: from (0, 4.99) to (10, 4.99) it
     * passes atan(tan 4.99 / cos 5) = 5.009 at lng 5, north of A and E. */
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [10, 4.99])", 2);
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [10, 4.98])", 0); /* 4.999 */
    EXPECT(txn, p.place, "location geoWithin geoBox([10, 10], [0, 0])", 2); /* the corners in any order */
    EXPECT(txn, p.place, "location geoWithin geoBox([-180, -90], [180, 90])", 4);
    /* 0.01 rad = 0.57 degrees around A and E; 0.2 rad (11.5 degrees) reaches B at 10 degrees. */
    EXPECT(txn, p.place, "location geoWithin geoCircle([5, 5], 0.01)", 2);
    EXPECT(txn, p.place, "location geoWithin geoCircle([5.0, 5.0], 0.2)", 3);
    EXPECT(txn, p.place, "location geoWithin geoCircle([-177, 0], 0.15)", 1); /* F: 8 degrees = 0.140 */
    EXPECT(txn, p.place, "location geoWithin geoCircle([-177, 0], 0.13)", 0);
    EXPECT(txn, p.place, "location geoWithin geoPolygon({[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]})", 2);
    EXPECT(txn, p.place,
           "location geoWithin geoPolygon({[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]}, {[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]})",
           0);
    EXPECT(txn, p.place, "location geoWithin geoPolygon({[0, 0, 1], [20, 0, 1], [20, 10], [0, 10], [0, 0, 1]})", 3);
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0, 7], [10, 10, 8])", 2);      /* altitudes: no part in matching */
    EXPECT(txn, p.place, "location geoWithin geoCircle([5, 5, 1000], 0.01)", 2);
    EXPECT(txn, p.place, "NOT location geoWithin geoBox([0, 0], [10, 10])", 4);
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [10, 10]) AND name == 'E'", 1);
    EXPECT(txn, p.place, "location geoWithin geoBox([0, 0], [10, 10]) OR name == 'C'", 3);
    /* Lists of embedded objects: ANY (the default), ALL (at least one, every one), NONE. */
    EXPECT(txn, p.place, "locations geoWithin geoBox([0, 0], [10, 10])", 2);
    EXPECT(txn, p.place, "ANY locations geoWithin geoBox([0, 0], [10, 10])", 2);
    EXPECT(txn, p.place, "ALL locations geoWithin geoBox([0, 0], [10, 10])", 1);
    EXPECT(txn, p.place, "NONE locations geoWithin geoBox([0, 0], [10, 10])", 4);
    EXPECT(txn, p.place, "SUBQUERY(locations, $l, $l geoWithin geoCircle([1, 1], 0.001)).@count == 1", 2);
    ce_txn_end(txn);
    test_db_close(&p.t);
}

TEST(geo_within_arguments)
{
    places p = places_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    ce_geo square_box = box(0, 0, 10, 10);
    ce_query_argument shape = {.kind = CE_QUERY_ARGUMENT_GEO, .geo = &square_box};
    CHECK(count_of(txn, p.place, "location geoWithin $0", &shape, 1) == 2);
    CHECK(count_of(txn, p.place, "location geoWithin %@", &shape, 1) == 2);
    CHECK(count_of(txn, p.place, "location IN %@", &shape, 1) == 2); /* Realm Swift's form */
    CHECK(count_of(txn, p.place, "ANY locations IN $0", &shape, 1) == 2);
    size_t sizes[] = {5, 5};
    ce_geo_point rings[] = {{0, 0}, {20, 0}, {20, 10}, {0, 10}, {0, 0}, {14, 4}, {16, 4}, {16, 6}, {14, 6}, {14, 4}};
    ce_geo holed = polygon(rings, sizes, 2);
    ce_query_argument polygon_argument = {.kind = CE_QUERY_ARGUMENT_GEO, .geo = &holed};
    ce_query *query;
    CHECK(ce_query_parse(txn, p.place, "location geoWithin $0", &polygon_argument, 1, &query));
    /* The arguments were copied: changing the caller's points changes nothing. */
    rings[0].longitude = 50;
    size_t count;
    CHECK(ce_query_count(query, txn, &count) && count == 2); /* A and E; B (15, 5) is in the hole */
    ce_query_free(query);
    /* Coordinates as arguments. */
    ce_query_argument numbers[3] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_INT, .integer = 5}},
                                    {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_DOUBLE, .double_value = 5}},
                                    {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_FLOAT, .float_value = 0.01f}}};
    CHECK(count_of(txn, p.place, "location geoWithin geoCircle([$0, $1], $2)", numbers, 3) == 2);
    CHECK(count_of(txn, p.place, "location geoWithin geoBox([0, 0], [$0, $0])", numbers, 1) == 2);
    ce_txn_end(txn);
    test_db_close(&p.t);
}

TEST(geo_within_errors)
{
    places p = places_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    expect_error(txn, p.place, "name geoWithin geoBox([0, 0], [1, 1])", NULL, 0,
                 "The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is 'string'");
    expect_error(txn, p.place, "shop geoWithin geoBox([0, 0], [1, 1])", NULL, 0,
                 "A GEOWITHIN query can only operate on a link to an embedded class but 'Shop' is at the top level");
    expect_error(txn, p.place, "location geoWithin geoBox([0, 10], [10, 10])", NULL, 0,
                 "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 10], [0, 10], [10, 10], [10, 10], [0, 10]})': "
                 "'Ring 0 must have at least 3 different vertices, 2 unique vertices were provided'");
    expect_error(txn, p.place, "location geoWithin geoCircle([0, 0], -1)", NULL, 0,
                 "Invalid region in GEOWITHIN query for parameter 'GeoCircle([0, 0], -1)': 'The radius of a circle must be a "
                 "non-negative number'");
    expect_error(txn, p.place, "location geoWithin geoPolygon({[0, 0], [1, 0], [1, 1]})", NULL, 0,
                 "Ring is not closed, first vertex 'GeoPoint([0, 0])' does not equal last vertex 'GeoPoint([1, 1])'");
    /* Altitudes written in the predicate are kept and printed, as realm-core. */
    expect_error(txn, p.place, "location geoWithin geoCircle([1, 2, 30], -1)", NULL, 0,
                 "Invalid region in GEOWITHIN query for parameter 'GeoCircle([1, 2, 30], -1)'");
    expect_error(txn, p.place, "location geoWithin geoBox([0, 10, 5], [10, 10])", NULL, 0,
                 "parameter 'GeoPolygon({[0, 10, 5], [0, 10], [10, 10], [10, 10], [0, 10, 5]})'");
    expect_error(txn, p.place, "location geoWithin geoPolygon({[0, 0, 1], [1, 0], [1, 1], [0, 0, 2]})", NULL, 0,
                 "Ring is not closed, first vertex 'GeoPoint([0, 0, 1])' does not equal last vertex 'GeoPoint([0, 0, 2])'");
    expect_error(txn, p.place, "location geoWithin geoPolygon({[0, 0, 1], [1, 0], [1, 1], [0, 0]})", NULL, 0,
                 "Ring is not closed, first vertex 'GeoPoint([0, 0, 1])' does not equal last vertex 'GeoPoint([0, 0])'");
    ce_geo flat = box(0, 10, 10, 10);
    ce_query_argument shape = {.kind = CE_QUERY_ARGUMENT_GEO, .geo = &flat};
    expect_error(txn, p.place, "location geoWithin $0", &shape, 1,
                 "The Geospatial query argument region is invalid: 'Ring 0 must have at least 3 different vertices, 2 unique "
                 "vertices were provided'");
    expect_error(txn, p.place, "location IN $0", &shape, 1,
                 "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 10], [0, 10], [10, 10], [10, 10], [0, 10]})': "
                 "'Ring 0 must have at least 3 different vertices, 2 unique vertices were provided'");
    ce_query_argument five = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_INT, .integer = 5}};
    expect_error(txn, p.place, "location geoWithin $0", &five, 1,
                 "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is 'int'");
    ce_geo fine = box(0, 0, 1, 1);
    ce_query_argument fine_shape = {.kind = CE_QUERY_ARGUMENT_GEO, .geo = &fine};
    expect_error(txn, p.place, "name == $0", &fine_shape, 1, "a geospatial shape is compared only by GEOWITHIN or IN, not ==");
    expect_error(txn, p.place, "location geoWithin geoCircle([$0, 0], 1)", &fine_shape, 1,
                 "argument 0 is a coordinate and must be a number");
    expect_error(txn, p.place, "location geoWithin 5", NULL, 0,
                 "GEOWITHIN needs a shape: geoBox(...), geoCircle(...), geoPolygon(...) or an argument");
    expect_error(txn, p.place, "location geoWithin geoBox([0, 0])", NULL, 0, "expected ',' between the shape's parts");
    expect_error(txn, p.place, "location geoWithin geoBox([0, 'x'], [1, 1])", NULL, 0,
                 "expected a number (a coordinate) or an argument like $0");
    expect_error(txn, p.place, "location geoWithin geoPolygon()", NULL, 0, "expected '{' to start a ring of points");
    expect_error(txn, p.place, "ALL location geoWithin geoBox([0, 0], [1, 1])", NULL, 0,
                 "property 'Place.location' is not a link/collection (ALL needs one)");
    ce_txn_end(txn);
    /* An embedded class without the shape, and a point of another type. */
    ce_txn *write;
    CHECK(ce_txn_begin_write(p.t.db, &write));
    ce_table_key plain;
    ce_column_key link, point_link;
    CHECK(ce_table_add_embedded(write, "Plain", &plain));
    ce_property_info info = {.name = "plain", .type = CE_TYPE_LINK, .nullable = true, .link_target = plain};
    CHECK(ce_property_add(write, p.place, &info, &link));
    (void)point_link;
    expect_error(write, p.place, "plain geoWithin geoBox([0, 0], [1, 1])", NULL, 0,
                 "Query 'plain GEOWITHIN GeoPolygon({[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]})' links to data in the wrong "
                 "format for a geoWithin query");
    ce_txn_end(write);
    test_db_close(&p.t);
}

TEST(geo_within_skips_objects_without_a_valid_point)
{
    places p = places_open();
    ce_txn *write;
    CHECK(ce_txn_begin_write(p.t.db, &write));
    /* Each of these is at (5, 5) but for one fault, and matches nothing
     * (realm-core's point_from_obj and GeoRegion::contains). */
    static const double at[] = {5, 5}, none[] = {0}, north[] = {5, 95}, east[] = {185, 5}, nan_lat[] = {5, NAN};
    add_place(write, &p, "G", "Polygon", at, 2, NULL, 0); /* another type: no match, not an error */
    add_place(write, &p, "H", "", at, 2, NULL, 0);
    add_place(write, &p, "I", "Points", at, 2, NULL, 0);
    add_place(write, &p, "J", "Point", none, 0, NULL, 0); /* no coordinates */
    add_place(write, &p, "K", "Point", north, 2, NULL, 0); /* latitude 95 */
    add_place(write, &p, "L", "Point", east, 2, NULL, 0);  /* longitude 185 */
    add_place(write, &p, "M", "Point", nan_lat, 2, NULL, 0);
    /* A and E only, whatever the shape; the whole sphere too. */
    EXPECT(write, p.place, "location geoWithin geoCircle([5, 5], 0.01)", 2);
    EXPECT(write, p.place, "location geoWithin geoCircle([0, 0], 4)", 4); /* A, B, E, F */
    EXPECT(write, p.place, "location geoWithin geoPolygon({[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]})", 2);
    EXPECT(write, p.place, "location geoWithin geoCircle([5, 5], 0.01) AND name == 'G'", 0);
    EXPECT(write, p.place, "NOT location geoWithin geoCircle([5, 5], 0.01)", 11);
    EXPECT(write, p.place, "NOT location geoWithin geoCircle([0, 0], 4)", 9);
    ce_txn_end(write);
    test_db_close(&p.t);
}

TEST(geo_within_results_follow_the_points)
{
    places p = places_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    ce_query *query;
    ce_results *results;
    CHECK(ce_query_parse(txn, p.place, "location geoWithin geoBox([0, 0], [10, 10])", NULL, 0, &query) &&
          ce_query_find_all(query, &results));
    size_t count;
    CHECK(ce_results_count(results, txn, &count) && count == 2);
    ce_txn_end(txn);
    /* Move B's point (15, 5) into the box: only the embedded object changes. */
    ce_txn *write;
    CHECK(ce_txn_begin_write(p.t.db, &write));
    ce_object_key b;
    CHECK(ce_object_key_at(write, p.place, 1, &b));
    ce_value link;
    CHECK(ce_object_get(write, p.place, b, p.where, &link) && link.type == CE_TYPE_LINK);
    static const double moved[] = {9, 9};
    set_point(write, &p, link.link.key, "Point", moved, 2);
    CHECK(ce_txn_commit(write));
    ce_txn_end(write);
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    CHECK(ce_results_count(results, txn, &count) && count == 3);
    ce_txn_end(txn);
    ce_results_free(results);
    ce_query_free(query);
    test_db_close(&p.t);
}
