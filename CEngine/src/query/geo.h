/*
 * geo.h — geospatial regions on the sphere (geo.c): a ce_geo shape
 * checked and prepared once, then asked whether points lie within it.
 *
 * Owns: the prepared region (a latitude/longitude box, a spherical cap, a
 * polygon of great-circle edges with holes), its checks with realm-core's
 * messages, containment of a point, and the shape's text for messages.
 * Never: reads the database, binds a predicate or knows what a property
 * holds (bind_predicate.c and eval.c do).
 *
 * The model is realm-core's (src/realm/geospatial.cpp over S2): a box is
 * the polygon through its four corners (GeoBox::to_polygon: lo,
 * [lo.lng, hi.lat], hi, [hi.lng, lo.lat]), so its edges are great-circle
 * arcs, not parallels, and the corners' order does not matter; a circle
 * an S2Cap (the points
 * within `radius` radians of arc of the centre), a polygon an S2Polygon
 * (edges are great-circle arcs; each ring, whatever its orientation, is
 * the smaller of the two regions it bounds; holes are subtracted). One
 * difference: S2 gives points exactly on a polygon's edge to one side or
 * the other by symbolic perturbation; here every region is closed, a
 * point on an edge or vertex is within (on a hole's edge too).
 */
#ifndef CE_GEO_H
#define CE_GEO_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct geo_region geo_region;

/* Checks `shape` and prepares it (one heap block: free with free()). An
 * invalid shape returns false with *out_region NULL and realm-core's
 * reason in `reason` ("Ring 0 must have at least 3
 * different vertices, 2 unique vertices were provided", ...); running out
 * of memory returns false with an empty reason and the error set. */
bool geo_region_make(const ce_geo *shape, geo_region **out_region, char *reason, size_t reason_size);

/* Whether the point (degrees) lies within the region. A point outside the
 * ranges (a latitude beyond +-90, a longitude beyond +-180, NaN) lies
 * nowhere, as realm-core's GeoRegion::contains refuses an invalid
 * S2LatLng. */
bool geo_region_contains(const geo_region *region, double longitude, double latitude);

/* The shape as realm-core prints it: a box as its polygon,
 * "GeoPolygon({[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]})",
 * "GeoCircle([2, 3], 0.5)", "GeoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]})"
 * (truncated to `size`). */
void geo_describe(const ce_geo *shape, char *out, size_t size);

#endif
