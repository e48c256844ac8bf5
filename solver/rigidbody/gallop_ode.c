// C side of package ode. Everything that runs per contact or per step is
// here, so a World.Step is a single cgo call with no callback into Go.
//
// Process-wide state (see doc.go, "Threads and determinism"):
//   - rand_mu serialises the QuickSteps that draw from ODE's one global
//     random generator (dRand), each with its own world's seed;
//   - trimesh_mu serialises trimesh collisions, because this ODE build has
//     no thread-local storage and keeps one global OPCODE collider cache;
//   - the message handler counts ODE's messages into the world stepping on
//     the calling thread (current_world) instead of printing them.

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gallop_ode.h"

_Static_assert(sizeof(dReal) == sizeof(double), "package ode needs ODE built in double precision");
_Static_assert(sizeof(dTriIndex) == 4, "package ode needs 32-bit trimesh indices");

// QuickStep reorders its constraint rows with dRandInt at iterations 8, 16,
// ... (counting from 0; quickstep.cpp, REORDERING_METHOD__RANDOMLY with
// RANDOM_CONSTRAINTS_REORDERING_FREQUENCY 8), so with fewer than this many
// iterations it never touches the random generator.
enum { QUICK_RANDOM_FROM = 9 };

static pthread_mutex_t rand_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t trimesh_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread gallop_world *current_world;
static __thread int thread_ready;

static void message_handler(int errnum, const char *msg, va_list ap) {
	gallop_world *w = current_world;
	if (w == NULL) {
		return;
	}
	w->messages++;
	int n = snprintf(w->last_message, sizeof w->last_message, "ODE message %d: ", errnum);
	if (n > 0 && n < (int)sizeof w->last_message) {
		vsnprintf(w->last_message + n, sizeof w->last_message - n, msg, ap);
	}
}

// ensure_thread gives the calling OS thread ODE's per-thread data. This
// build has none (no ODE_EXT_mt_collisions), so the call only records the
// thread; a build with thread-local storage would allocate its collider
// cache here. Goroutines move between threads, so every entry point that
// collides calls this first.
static void ensure_thread(void) {
	if (!thread_ready) {
		dAllocateODEDataForThread(dAllocateMaskAll);
		thread_ready = 1;
	}
}

void gallop_init(void) {
	dInitODE2(0);
	dSetMessageHandler(message_handler);
}

static void own(gallop_world *w, int kind, void *ptr) {
	if (w->nowned == w->cap_owned) {
		int cap = w->cap_owned ? 2 * w->cap_owned : 16;
		gallop_owned *o = realloc(w->owned, cap * sizeof *o);
		if (o == NULL) {
			abort();
		}
		w->owned = o;
		w->cap_owned = cap;
	}
	w->owned[w->nowned].kind = kind;
	w->owned[w->nowned].ptr = ptr;
	w->nowned++;
}

gallop_world *gallop_world_create(double gx, double gy, double gz) {
	ensure_thread();
	gallop_world *w = calloc(1, sizeof *w);
	if (w == NULL) {
		abort();
	}
	w->world = dWorldCreate();
	dWorldSetGravity(w->world, gx, gy, gz);
	// ODE's default threading implementation is one unsynchronised object
	// shared by every world: two worlds stepping on two threads corrupt its
	// job list. Each world gets its own.
	w->threading = dThreadingAllocateSelfThreadedImplementation();
	if (w->threading == NULL) {
		abort();
	}
	dWorldSetStepThreadingImplementation(w->world,
		dThreadingImplementationGetFunctions(w->threading), w->threading);
	w->dyn = dSimpleSpaceCreate(0);
	w->stat = dSimpleSpaceCreate(0);
	w->contacts = dJointGroupCreate(0);
	w->dt = 0.001;
	w->quick = 0;
	w->iterations = 20;
	dWorldSetQuickStepNumIterations(w->world, w->iterations);
	w->seed = 0;
	w->max_contacts = 8;
	w->rest_lin2 = 0.01 * 0.01;
	w->rest_ang2 = 0.1 * 0.1;
	w->rest_steps = 20;
	w->bad_body = -1;
	return w;
}

void gallop_world_destroy(gallop_world *w) {
	ensure_thread();
	if (w->trimeshes > 0) {
		pthread_mutex_lock(&trimesh_mu);
	}
	dJointGroupDestroy(w->contacts);
	dSpaceDestroy(w->dyn);  // destroys its geoms (cleanup mode is on)
	dSpaceDestroy(w->stat);
	dWorldDestroy(w->world); // destroys the bodies
	dThreadingFreeImplementation(w->threading);
	for (int i = 0; i < w->nowned; i++) {
		switch (w->owned[i].kind) {
		case 0:
			free(w->owned[i].ptr);
			break;
		case 1:
			dGeomTriMeshDataDestroy((dTriMeshDataID)w->owned[i].ptr);
			break;
		case 2:
			dGeomHeightfieldDataDestroy((dHeightfieldDataID)w->owned[i].ptr);
			break;
		}
	}
	if (w->trimeshes > 0) {
		pthread_mutex_unlock(&trimesh_mu);
	}
	free(w->owned);
	free(w->bodies);
	free(w->rest);
	free(w);
}

// combine fills the contact parameters of a touching pair (see Surface in
// surface.go): friction coefficients combine by their geometric mean,
// restitution and bounce threshold by their maximum. A geom without
// parameters counts as frictionless and inelastic.
static void combine(const gallop_surface *a, const gallop_surface *b, dSurfaceParameters *s) {
	static const gallop_surface zero;
	if (a == NULL) {
		a = &zero;
	}
	if (b == NULL) {
		b = &zero;
	}
	memset(s, 0, sizeof *s);
	// Approx1: mu and rho are coefficients (times the normal force), not
	// force limits.
	s->mode = dContactApprox1;
	s->mu = (a->mu == 0 || b->mu == 0) ? 0 : sqrt(a->mu * b->mu);
	s->bounce = fmax(a->bounce, b->bounce);
	s->bounce_vel = fmax(a->bounce_vel, b->bounce_vel);
	if (s->bounce > 0) {
		s->mode |= dContactBounce;
	}
	double rho = (a->rolling == 0 || b->rolling == 0) ? 0 : sqrt(a->rolling * b->rolling);
	if (rho > 0) {
		s->mode |= dContactRolling;
		s->rho = rho;
		s->rho2 = rho;
		s->rhoN = rho;
	}
}

// field_at returns s with mu and bounce read from its field, if it has
// one, at world point p.
static gallop_surface field_at(const gallop_surface *s, const dReal *p) {
	gallop_surface r = *s;
	const gallop_field *f = s->field;
	double u = (p[0] - f->x0) / f->dx, v = (p[2] - f->z0) / f->dz;
	u = fmin(fmax(u, 0), f->nx - 1);
	v = fmin(fmax(v, 0), f->nz - 1);
	int i = (int)u, j = (int)v;
	if (i > f->nx - 2) {
		i = f->nx - 2;
	}
	if (j > f->nz - 2) {
		j = f->nz - 2;
	}
	double a = u - i, b = v - j;
	int k = j * f->nx + i;
	r.mu = (1 - b) * ((1 - a) * f->mu[k] + a * f->mu[k + 1]) +
		b * ((1 - a) * f->mu[k + f->nx] + a * f->mu[k + f->nx + 1]);
	r.bounce = (1 - b) * ((1 - a) * f->bounce[k] + a * f->bounce[k + 1]) +
		b * ((1 - a) * f->bounce[k + f->nx] + a * f->bounce[k + f->nx + 1]);
	return r;
}

static void near_callback(void *data, dGeomID o1, dGeomID o2) {
	gallop_world *w = data;
	if (dGeomIsSpace(o1) || dGeomIsSpace(o2)) {
		dSpaceCollide2(o1, o2, data, near_callback);
		return;
	}
	dBodyID b1 = dGeomGetBody(o1);
	dBodyID b2 = dGeomGetBody(o2);
	int moving1 = b1 != NULL && dBodyIsEnabled(b1);
	int moving2 = b2 != NULL && dBodyIsEnabled(b2);
	if (!moving1 && !moving2) {
		return; // static or disabled on both sides: nothing to solve
	}
	dContactGeom cg[GALLOP_MAX_CONTACTS];
	int tm = dGeomGetClass(o1) == dTriMeshClass || dGeomGetClass(o2) == dTriMeshClass;
	if (tm) {
		pthread_mutex_lock(&trimesh_mu);
	}
	int n = dCollide(o1, o2, w->max_contacts, cg, sizeof cg[0]);
	if (tm) {
		pthread_mutex_unlock(&trimesh_mu);
	}
	if (n <= 0) {
		return;
	}
	dContact c;
	const gallop_surface *s1 = dGeomGetData(o1), *s2 = dGeomGetData(o2);
	int fields = (s1 != NULL && s1->field != NULL) || (s2 != NULL && s2->field != NULL);
	if (!fields) {
		combine(s1, s2, &c.surface);
	}
	memset(c.fdir1, 0, sizeof c.fdir1);
	for (int i = 0; i < n; i++) {
		if (fields) {
			gallop_surface f1, f2;
			if (s1 != NULL && s1->field != NULL) {
				f1 = field_at(s1, cg[i].pos);
				s1 = &f1;
			}
			if (s2 != NULL && s2->field != NULL) {
				f2 = field_at(s2, cg[i].pos);
				s2 = &f2;
			}
			combine(s1, s2, &c.surface);
			s1 = dGeomGetData(o1);
			s2 = dGeomGetData(o2);
		}
		c.geom = cg[i];
		dJointID j = dJointCreateContact(w->world, w->contacts, &c);
		dJointAttach(j, b1, b2);
	}
	w->ncontacts += n;
}

static int finite3(const dReal *v) {
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

int gallop_world_step(gallop_world *w) {
	ensure_thread();
	current_world = w;
	w->ncontacts = 0;
	dSpaceCollide(w->dyn, w, near_callback);
	dSpaceCollide2((dGeomID)w->dyn, (dGeomID)w->stat, w, near_callback);
	int ok;
	if (!w->quick) {
		ok = dWorldStep(w->world, w->dt);
	} else if (w->iterations < QUICK_RANDOM_FROM) {
		ok = dWorldQuickStep(w->world, w->dt);
	} else {
		pthread_mutex_lock(&rand_mu);
		dRandSetSeed(w->seed);
		ok = dWorldQuickStep(w->world, w->dt);
		w->seed = dRandGetSeed();
		pthread_mutex_unlock(&rand_mu);
	}
	dJointGroupEmpty(w->contacts);
	current_world = NULL;
	w->steps++;
	if (!ok) {
		return GALLOP_STEP_FAILED;
	}

	w->bad_body = -1;
	int nrest = 0;
	for (int i = 0; i < w->nbodies; i++) {
		dBodyID b = w->bodies[i];
		const dReal *v = dBodyGetLinearVel(b);
		const dReal *a = dBodyGetAngularVel(b);
		const dReal *p = dBodyGetPosition(b);
		if (w->bad_body < 0 && !(finite3(p) && finite3(v) && finite3(a))) {
			w->bad_body = i;
		}
		if (!dBodyIsEnabled(b)) {
			w->rest[i] = w->rest_steps;
		} else if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= w->rest_lin2 &&
			a[0] * a[0] + a[1] * a[1] + a[2] * a[2] <= w->rest_ang2) {
			if (w->rest[i] < w->rest_steps) {
				w->rest[i]++;
			}
		} else {
			w->rest[i] = 0;
		}
		if (w->rest[i] >= w->rest_steps) {
			nrest++;
		}
	}
	w->nrest = nrest;
	return w->bad_body >= 0 ? GALLOP_DIVERGED : GALLOP_OK;
}

int gallop_body_create(gallop_world *w, dBodyID *out) {
	if (w->nbodies == w->cap_bodies) {
		int cap = w->cap_bodies ? 2 * w->cap_bodies : 16;
		dBodyID *b = realloc(w->bodies, cap * sizeof *b);
		int *r = realloc(w->rest, cap * sizeof *r);
		if (b == NULL || r == NULL) {
			abort();
		}
		w->bodies = b;
		w->rest = r;
		w->cap_bodies = cap;
	}
	dBodyID b = dBodyCreate(w->world);
	int i = w->nbodies++;
	w->bodies[i] = b;
	w->rest[i] = 0;
	*out = b;
	return i;
}

int gallop_body_at_rest(const gallop_world *w, int i) {
	return w->rest[i] >= w->rest_steps;
}

void gallop_world_poses(const gallop_world *w, double *out) {
	for (int i = 0; i < w->nbodies; i++, out += 7) {
		dBodyID b = w->bodies[i];
		const dReal *p = dBodyGetPosition(b);
		const dReal *q = dBodyGetQuaternion(b);
		out[0] = p[0];
		out[1] = p[1];
		out[2] = p[2];
		out[3] = q[0];
		out[4] = q[1];
		out[5] = q[2];
		out[6] = q[3];
	}
}

gallop_surface *gallop_surface_new(gallop_world *w, dGeomID g) {
	gallop_surface *s = calloc(1, sizeof *s);
	if (s == NULL) {
		abort();
	}
	own(w, 0, s);
	dGeomSetData(g, s);
	return s;
}

gallop_field *gallop_field_new(gallop_world *w, int nx, int nz) {
	gallop_field *f = calloc(1, sizeof *f);
	double *mu = calloc((size_t)nx * nz, sizeof *mu);
	double *bounce = calloc((size_t)nx * nz, sizeof *bounce);
	if (f == NULL || mu == NULL || bounce == NULL) {
		abort();
	}
	own(w, 0, f);
	own(w, 0, mu);
	own(w, 0, bounce);
	f->nx = nx;
	f->nz = nz;
	f->mu = mu;
	f->bounce = bounce;
	return f;
}

dGeomID gallop_trimesh_create(gallop_world *w, const double *vertices, int nvertices,
	const unsigned int *indices, int nindices) {
	double *v = malloc(3 * sizeof(double) * (size_t)nvertices);
	dTriIndex *t = malloc(sizeof(dTriIndex) * (size_t)nindices);
	if (v == NULL || t == NULL) {
		abort();
	}
	memcpy(v, vertices, 3 * sizeof(double) * (size_t)nvertices);
	memcpy(t, indices, sizeof(dTriIndex) * (size_t)nindices);
	dTriMeshDataID data = dGeomTriMeshDataCreate();
	dGeomTriMeshDataBuildDouble(data, v, 3 * sizeof(double), nvertices,
		t, nindices, 3 * sizeof(dTriIndex));
	dGeomTriMeshDataPreprocess2(data, 1U << dTRIDATAPREPROCESS_BUILD_CONCAVE_EDGES, NULL);
	// ODE keeps pointers to v and t: they are freed after the data, which
	// is destroyed after the geom (gallop_world_destroy frees in order).
	own(w, 1, data);
	own(w, 0, v);
	own(w, 0, t);
	dGeomID g = dCreateTriMesh(w->stat, data, NULL, NULL, NULL);
	// Temporal coherence would carry collision state from one step to the
	// next inside the trimesh; off, every query starts afresh.
	dGeomTriMeshEnableTC(g, dSphereClass, 0);
	dGeomTriMeshEnableTC(g, dBoxClass, 0);
	dGeomTriMeshEnableTC(g, dCapsuleClass, 0);
	w->trimeshes++;
	return g;
}

dGeomID gallop_heightfield_create(gallop_world *w, const double *heights, int nx, int nz,
	double size_x, double size_z, double thickness) {
	dHeightfieldDataID data = dGeomHeightfieldDataCreate();
	// copy = 1: ODE keeps its own copy of the heights.
	dGeomHeightfieldDataBuildDouble(data, heights, 1, size_x, size_z, nx, nz,
		1.0, 0.0, thickness, 0);
	own(w, 2, data);
	return dCreateHeightfield(w->stat, data, 1);
}
