// C side of package ode: the world record, the near callback and the step,
// so that collision detection and stepping run without calling back into
// Go. See doc.go for the rules this code implements.

#ifndef GALLOP_ODE_H
#define GALLOP_ODE_H

#include <ode/ode.h>

// gallop_field is friction and restitution varying over the world's x-z
// plane (SurfaceField in Go): samples on a regular grid, bilinearly
// interpolated at each contact point and clamped at the grid's border.
typedef struct gallop_field {
	int nx, nz;            // samples along x and z, >= 2 each
	double x0, z0, dx, dz; // world x, z of sample (0, 0) and the spacing
	double *mu, *bounce;   // nx*nz values each, sample (i, j) at j*nx + i
} gallop_field;

// gallop_surface holds one geom's contact parameters (Surface in Go). A
// geom's user data (dGeomSetData) points at its gallop_surface.
typedef struct gallop_surface {
	double mu;         // Coulomb friction coefficient, >= 0 (INFINITY: no slip)
	double bounce;     // restitution in [0, 1]
	double bounce_vel; // minimum approach speed for a bounce, m/s
	double rolling;    // rolling friction coefficient, >= 0
	gallop_field *field; // if not NULL, mu and bounce come from here
} gallop_surface;

// gallop_owned is something the world frees when it is destroyed, after
// its geoms: memory (kind 0), trimesh data (1), heightfield data (2).
typedef struct gallop_owned {
	int kind;
	void *ptr;
} gallop_owned;

// gallop_world is everything one World owns.
typedef struct gallop_world {
	dWorldID world;
	dSpaceID dyn;  // geoms attached to bodies (dSimpleSpace)
	dSpaceID stat; // static geoms (dSimpleSpace)
	dJointGroupID contacts;
	dThreadingImplementationID threading; // private self-threaded implementation

	double dt;
	int quick;           // 0: dWorldStep, 1: dWorldQuickStep
	int iterations;      // QuickStep iterations
	unsigned long seed;  // this world's state of ODE's random generator
	int max_contacts;    // per geom pair, 1..GALLOP_MAX_CONTACTS
	int trimeshes;       // number of trimesh geoms

	dBodyID *bodies;     // in creation order
	int *rest;           // consecutive steps each body has been slow
	int nbodies, cap_bodies;
	double rest_lin2, rest_ang2; // squared speed thresholds
	int rest_steps;
	int nrest;           // bodies at rest after the last step

	long steps;
	int ncontacts;       // contact joints made in the last step
	int bad_body;        // body found non-finite by the last step, or -1
	long messages;       // ODE messages printed during this world's steps
	char last_message[160];

	gallop_owned *owned;
	int nowned, cap_owned;
} gallop_world;

enum { GALLOP_MAX_CONTACTS = 64 };

// Step results.
enum { GALLOP_OK = 0, GALLOP_DIVERGED = 1, GALLOP_STEP_FAILED = 2 };

void gallop_init(void);
gallop_world *gallop_world_create(double gx, double gy, double gz);
void gallop_world_destroy(gallop_world *w);
int gallop_world_step(gallop_world *w);
int gallop_body_create(gallop_world *w, dBodyID *out);
void gallop_world_poses(const gallop_world *w, double *out);
gallop_surface *gallop_surface_new(gallop_world *w, dGeomID g);
dGeomID gallop_trimesh_create(gallop_world *w, const double *vertices, int nvertices,
	const unsigned int *indices, int nindices);
dGeomID gallop_heightfield_create(gallop_world *w, const double *heights, int nx, int nz,
	double size_x, double size_z, double thickness);
int gallop_body_at_rest(const gallop_world *w, int i);
gallop_field *gallop_field_new(gallop_world *w, int nx, int nz);

#endif
