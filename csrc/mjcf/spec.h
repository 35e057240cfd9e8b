// SPDX-License-Identifier: Apache-2.0
// The parsed model ("spec"): every MJCF element as a C struct with MuJoCo's defaults, before
// compilation. Attribute values are stored as read; names referring to other elements are
// kept as strings and resolved by the compiler. Each element remembers file and line.
#ifndef PX_MJCF_SPEC_H_
#define PX_MJCF_SPEC_H_

#include "px/pxmodel.h"
#include "px/pxstatus.h"
#include "mjcf/xml.h"

#define PXC_MAX_ELEMENTS (1 << 20)  // elements of one kind in a model (bodies, geoms, keys, ...)
#define PXC_NAME 128  // longest name (MuJoCo's limit is larger; longer names are errors)

#define PXC_MAXUSER 64  // user values per element

// user values of an element (body_user, geom_user, ...)
typedef struct {
  double v[PXC_MAXUSER];
  int n;  // values given
} pxcUser;

// where an element came from
typedef struct {
  const char* file;
  int line;
} pxcSrc;

//---------------------------------- elements with defaults ----------------------------------------

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int type;  // pxtJoint
  int group;
  double pos[3];
  double axis[3];
  double ref, springref;
  int limited, actfrclimited;  // 0 false, 1 true, 2 auto
  int actgravcomp;
  double solref_limit[2], solimp_limit[5];
  double solref_friction[2], solimp_friction[5];
  double stiffness[3];  // spring polynomial
  double damping[3];    // damper polynomial
  double springdamper[2];
  double range[2], actfrcrange[2];
  double margin, armature, frictionloss;
  int align;     // freejoint alignment: 0 false, 1 true, 2 auto
  int freeelem;  // declared by <freejoint> (for messages)
  pxcUser user;
  int body;  // owning body
} pxcJoint;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int type;  // pxtGeom
  int contype, conaffinity, condim, group, priority;
  double size[3];
  int nsize;  // values given in size
  char material[PXC_NAME];
  double friction[3];
  double mass;  // NaN: not given (from density)
  double density;
  int shellinertia;
  double solmix, solref[2], solimp[5];
  double margin, gap, adhesion;
  double surfacevel[6];
  double fromto[6];
  int hasfromto;
  double framepos[3], framequat[4];  // enclosing <frame>s, applied after fromto (not folded)
  double pos[3], quat[4];
  char hfield[PXC_NAME], mesh[PXC_NAME];
  double fitscale;
  float rgba[4];
  int fluidshape;  // 0 none, 1 ellipsoid
  double fluidcoef[5];
  pxcUser user;
  int body;
} pxcGeom;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int type, group;
  double pos[3], quat[4];
  char material[PXC_NAME];
  double size[3];
  double fromto[6];
  int hasfromto;
  double framepos[3], framequat[4];  // enclosing <frame>s, applied after fromto (not folded)
  float rgba[4];
  pxcUser user;
  int body;
} pxcSite;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int projection;
  double fovy, ipd;
  int resolution[2];
  int output;
  double pos[3], quat[4];
  int mode;
  char target[PXC_NAME];
  float focal[2], focalpixel[2], principal[2], principalpixel[2], sensorsize[2];
  int hasintrinsic;
  pxcUser user;
  int body;
} pxcCamera;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int type;  // pxtLightType
  int castshadow, active;
  double pos[3], dir[3];
  float bulbradius, intensity, range, attenuation[3], cutoff, softness, exponent;
  float ambient[3], diffuse[3], specular[3];
  int mode;
  char target[PXC_NAME];
  char texture[PXC_NAME];
  int body;
} pxcLight;

// textures are name-only (renderers need the image; the model keeps name, file and kind)
typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char file[1024];
  int skybox;
} pxcTexture;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char texture[PXC_NAME];
  float texrepeat[2];
  int texuniform;
  float emission, specular, shininess, reflectance, metallic, roughness, rgba[4];
} pxcMaterial;

// a height field: elevation rows bottom to top (the XML's are top to bottom), normalized to
// [0, 1] by pxc_compileHfields
typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char file[1024];
  int nrow, ncol;
  double size[4];
  float* data;  // nrow x ncol, or NULL until given or loaded
} pxcHfield;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char file[1024];
  double scale[3];
  double refpos[3], refquat[4];
  int inertia;  // mjtMeshInertia
  int maxhullvert;
  double* vertex;
  int nvertex;  // values (3 per vertex)
  int* face;
  int nface;         // values (3 per face)
  int builtin;       // builtin="..." (MuJoCo's mjtMeshBuiltin: 1 sphere .. 7 plate), 0 none given
  double params[8];  // params="..." of a builtin mesh (the first 8)
  int nparams;       // number of values given in params
} pxcMeshSpec;

// tendon (class defaults and <fixed>/<spatial>); wraps are in pxcSpec.wrap
typedef struct {
  pxcSrc src;
  const char* tag;  // element name (fixed, spatial)
  char name[PXC_NAME];
  int limited, actfrclimited;  // 0 false, 1 true, 2 auto
  int group;
  double range[2], actfrcrange[2];
  double solref_limit[2], solimp_limit[5], solref_friction[2], solimp_friction[5];
  double frictionloss;
  double springlength[2];  // -1 -1: length at qpos_spring
  double width;
  char material[PXC_NAME];
  double margin;
  double stiffness[3], damping[3];  // polynomials
  double armature;
  float rgba[4];
  pxcUser user;
  int spatial;           // 1 spatial, 0 fixed
  int wrapadr, wrapnum;  // into pxcSpec.wrap
} pxcTendon;

// one element of a tendon path
typedef struct {
  pxcSrc src;
  const char* tag;  // element name (joint, site, geom, pulley)
  int type;         // pxtWrap (PX_WRAP_SPHERE for any geom until resolved)
  char obj[PXC_NAME];
  char sidesite[PXC_NAME];
  double prm;  // coef (joint) or divisor (pulley)
} pxcWrap;

// actuator (class defaults and every actuator element); shortcut elements are applied to it
// with MuJoCo's mjs_setTo* semantics when read
typedef struct {
  pxcSrc src;
  const char* kind;  // element name it came from (general, motor, ...)
  char name[PXC_NAME];
  int group;
  int ctrllimited, forcelimited, actlimited;  // 0 false, 1 true, 2 auto
  double ctrlrange[2], forcerange[2], actrange[2];
  double lengthrange[2];
  double gear[6];
  double damping[3];
  double armature;
  double cranklength;
  int trntype;                // pxtTrn; PX_TRN_UNDEFINED until a target is given
  char target[PXC_NAME];      // joint, tendon, site, crank site or body
  char slidersite[PXC_NAME];  // slider-crank base site
  char refsite[PXC_NAME];     // site transmission reference
  int actdim;                 // -1: from dyntype
  int dyntype, gaintype, biastype;
  double dynprm[10], gainprm[10], biasprm[10];
  int actearly;
  double inheritrange;
  double velrange[2], ffrange[2];  // pid inputs (read, unused by the supported kinds)
  int nsample, interp;
  double delay;
  pxcUser user;
} pxcActuator;

// equality constraint (class defaults and <connect>/<weld>/<joint>/<tendon>)
typedef struct {
  pxcSrc src;
  const char* tag;  // element name
  char name[PXC_NAME];
  int type;     // pxtEq
  int objtype;  // pxtObj of name1/name2
  int active;
  double solref[2], solimp[5];
  char name1[PXC_NAME], name2[PXC_NAME];
  double data[11];
} pxcEquality;

// contact pair (class defaults and <pair>) or, in pxcSpec.exclude, an excluded body pair
typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char geom1[PXC_NAME], geom2[PXC_NAME];  // body names for excludes
  int condim;
  double friction[5];
  double solref[2], solreffriction[2], solimp[5];
  double gap, margin, adhesion;
} pxcPair;

// sensor; type, objtype, reftype and intprm as MuJoCo's reader sets them
typedef struct {
  pxcSrc src;
  const char* tag;  // element name
  char name[PXC_NAME];
  int type;  // mjtSensor value
  int datatype, needstage, dim;
  int objtype, reftype;  // pxtObj
  char objname[PXC_NAME], refname[PXC_NAME];
  int intprm[3];
  double cutoff, noise;
  int nsample, interp;
  double delay, interval[2];
  pxcUser user;
} pxcSensor;

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char parent[PXC_NAME];  // parent class name
  int parentid;
  pxcJoint joint;
  pxcGeom geom;
  pxcSite site;
  pxcCamera camera;
  pxcLight light;
  pxcMaterial material;
  pxcMeshSpec mesh;
  pxcTendon tendon;
  pxcActuator actuator;
  pxcEquality equality;
  pxcPair pair;
} pxcDefault;

//---------------------------------- bodies --------------------------------------------------------

typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  int parent;
  double pos[3], quat[4];  // in the parent frame (frames already folded in)
  int mocap;
  int simple;  // 0: simple="false", 1: auto
  int sleep;   // a sleep policy other than auto was given
  double gravcomp;
  pxcUser user;
  int hasinertial;
  double ipos[3], iquat[4], mass, inertia[3];
  int fullinertia;
  double fullinertia6[6];
  int firstjnt, njnt;  // joints are stored in body order
} pxcBody;

//---------------------------------- model composition (attach.c) ---------------------------------

typedef struct pxcSpec_ pxcSpec;

// a <model> asset: a parsed (and, when it has keyframes, compiled) child model
typedef struct {
  pxcSrc src;
  char name[PXC_NAME];
  char dir[1024], meshdir[1024];  // where its mesh and height field files are resolved
  pxcDoc* doc;
  pxcSpec* spec;
  pxModel* model;  // compiled, for its keyframes; NULL without keyframes
  int hasoption;   // it has an <option> element
} pxcChild;

// one <attach>: which child, names, and child element -> parent element maps (-1: not copied)
typedef struct {
  pxcSrc src;
  int child;
  char prefix[PXC_NAME], suffix[PXC_NAME];
  int *bodymap, *jntmap, *geommap, *sitemap, *tenmap, *actmap;
} pxcAttach;

// a keyframe contributed by an attachment: keyframe `key` of the child of attachment `attach`
typedef struct {
  char name[PXC_NAME];
  int attach, key;
} pxcAKey;

//---------------------------------- the whole spec
//-------------------------------------------------

// a growable array of structs
#define PXC_LIST(type, name) \
  type* name;                \
  int n##name;               \
  int cap##name

struct pxcSpec_ {
  // compiler settings
  int degree;  // angles in degrees
  char eulerseq[4];
  int inertiafromgeom;  // 0 false, 1 true, 2 auto
  int inertiagrouprange[2];
  int autolimits;
  double boundmass, boundinertia, settotalmass;
  int balanceinertia;
  int fusestatic, discardvisual, alignfree;
  int strippath;
  float znear;   // <visual><map znear> (camera intrinsics default)
  int fitaabb;   // fit primitive geoms to a mesh's bounding box instead of its inertia box
  int conflict;  // attach conflict policy: 0 warning, 1 merge, 2 error
  char meshdir[1024], texturedir[1024];
  char modelname[PXC_NAME];

  pxOption opt;
  int nuser_body, nuser_jnt, nuser_geom, nuser_site, nuser_cam, nuser_tendon, nuser_actuator,
      nuser_sensor;
  int nconmax, njmax;
  int sizekey;     // <size nkey>
  int stat_given;  // bit k set: statistic field k given (meaninertia, meanmass, meansize, extent,
                   // center)
  pxStatistic stat;

  PXC_LIST(pxcDefault, dflt);
  PXC_LIST(pxcBody, body);
  PXC_LIST(pxcJoint, jnt);
  PXC_LIST(pxcGeom, geom);
  PXC_LIST(pxcSite, site);
  PXC_LIST(pxcCamera, cam);
  PXC_LIST(pxcLight, light);
  PXC_LIST(pxcMaterial, mat);
  PXC_LIST(pxcMeshSpec, mesh);
  PXC_LIST(pxcTendon, tendon);
  PXC_LIST(pxcWrap, wrap);
  PXC_LIST(pxcActuator, act);
  PXC_LIST(pxcSensor, sensor);
  PXC_LIST(pxcEquality, eq);
  PXC_LIST(pxcPair, pair);
  PXC_LIST(pxcPair, exclude);  // geom1/geom2 hold body names
  PXC_LIST(pxcNode*, key);     // keyframes are read by the compiler (sizes known then)
  PXC_LIST(pxcNode*, custom);  // numeric, text and tuple elements
  PXC_LIST(pxcTexture, texture);
  PXC_LIST(pxcHfield, hfield);
  pxcSrc replicate;             // the first <replicate>, if any
  PXC_LIST(pxcChild, child);    // <model> assets
  PXC_LIST(pxcAttach, attach);  // <attach> elements, in document order
  PXC_LIST(pxcAKey, akey);      // keyframes of attached models, after the spec's own
  // MuJoCo's order of the pairs and exclusions (its stable sort by body signature): spec index
  // of each rank, set by pxc_sizeMisc (NULL before)
  int* pairorder;
  int* exclorder;
};

// parse context
typedef struct {
  pxStatus* st;
  pxcSpec* spec;
  pxcDoc* doc;
  char suffix[PXC_NAME];  // name suffix inside <replicate> (MuJoCo appends the copy index)
  int depth;              // nesting of <model> assets
  // set by the compiler before pxc_sizeMisc: the meshes' final names and vertex counts (the
  // tactile sensor's dimension)
  int nmeshc;
  char* const* meshname;
  const int* meshnvert;
} pxcCtx;

// return a failed status from the enclosing function
#define TRY(x)                  \
  do {                          \
    pxtStatus s_ = (x);         \
    if (s_ != PX_OK) return s_; \
  } while (0)

// return the context's status when an attribute reader failed (returned -1)
#define READ(x)                      \
  do {                               \
    if ((x) < 0) return c->st->code; \
  } while (0)

//---------------------------------- attribute readers
//----------------------------------------------
// Each returns 1 when the attribute was read, 0 when absent and -1 on error (status set, with
// file:line, element and attribute named).

// between nmin and nmax numbers into out (finite unless allowinf); *count gets how many
int pxc_readNums(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, double* out,
                 int* count);
int pxc_readNum(pxcCtx* c, pxcNode* n, const char* attr, double* out);
int pxc_readFloats(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, float* out);
int pxc_readInts(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, int* out);
int pxc_readInt(pxcCtx* c, pxcNode* n, const char* attr, int* out);
// a name into a PXC_NAME buffer
int pxc_readName(pxcCtx* c, pxcNode* n, const char* attr, char* out);
// any string into a buffer of size len
int pxc_readString(pxcCtx* c, pxcNode* n, const char* attr, char* out, int len);
// one of the words (NULL-terminated list) mapped to values
int pxc_readKeyword(pxcCtx* c, pxcNode* n, const char* attr, const char* const* words,
                    const int* values, int* out);
int pxc_readBool(pxcCtx* c, pxcNode* n, const char* attr, int* out);
// false / true / auto -> 0 / 1 / 2
int pxc_readTriBool(pxcCtx* c, pxcNode* n, const char* attr, int* out);
// a variable-length list of numbers (user data, key qpos, ...): malloc'ed
int pxc_readList(pxcCtx* c, pxcNode* n, const char* attr, double** out, int* count);
// orientation from quat / axisangle / xyaxes / zaxis / euler (at most one), into quat
int pxc_readOrientation(pxcCtx* c, pxcNode* n, double quat[4]);
// user values
int pxc_readUser(pxcCtx* c, pxcNode* n, pxcUser* user);

// quaternion rotating the z axis onto vec (MuJoCo's mjuu_z2quat)
void pxc_z2quat(double q[4], const double* vec);
// normalize a quaternion in place as MuJoCo's compiler does (left alone when within 1e-14)
void pxc_normalize4(double q[4]);
// quaternion of `times` x the euler angles, with the compiler's angle unit and sequence
void pxc_eulerQuat(const pxcSpec* sp, const double euler[3], int times, double q[4]);

// mjtObj value of an object type name ("body", "geom", ...), PX_OBJ_UNKNOWN if none
int pxc_str2Type(const char* s);

// error for every attribute of n no reader consumed
pxtStatus pxc_checkUnused(pxcCtx* c, pxcNode* n);

// error helper: "file:line: <elem>: message"
pxtStatus pxc_error(pxcCtx* c, pxcNode* n, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// grow a list by one zeroed element; returns its index or -1 (status set)
int pxc_grow(pxcCtx* c, void** list, int* n, int* cap, size_t size);
#define PXC_ADD(c, spec, name) \
  pxc_grow((c), (void**)&(spec)->name, &(spec)->n##name, &(spec)->cap##name, sizeof(*(spec)->name))

// height fields: name fallback, size checks, file loading, normalization (hfield.c)
pxtStatus pxc_compileHfields(pxcCtx* c);

// parse a document into a spec; compile a spec into a model
pxtStatus pxc_parse(pxcCtx* c, pxcNode* root);
pxtStatus pxc_compile(pxcCtx* c, pxModel** out);
void pxc_freeSpec(pxcSpec* spec);

// model composition (attach.c): a <model> asset; an <attach> under body `parent` (returns the
// new subtree root body, or -1 with the status set); the attached tendons, actuators, ... and
// keyframes, after the parent's own; the values of attached keyframe `akey` into key `key`
pxtStatus pxc_parseModelAsset(pxcCtx* c, pxcNode* n);
int pxc_attach(pxcCtx* c, pxcNode* n, int parent);
pxtStatus pxc_attachMisc(pxcCtx* c);
pxtStatus pxc_fillAttachedKey(pxcCtx* c, const pxModel* m, int akey, int key);
void pxc_freeAttach(pxcSpec* spec);

#endif  // PX_MJCF_SPEC_H_
