// SPDX-License-Identifier: Apache-2.0
// Primitive types and enums shared by every room (values are MuJoCo 3.12's).
#ifndef PX_INCLUDE_PX_PXTYPE_H_
#define PX_INCLUDE_PX_PXTYPE_H_

#include <stdint.h>

typedef double pxtNum;          // the engine's real type (MuJoCo's mjtNum)
typedef unsigned char pxtByte;  // MuJoCo's mjtByte (numpy uint8)
typedef unsigned char pxtBool;  // MuJoCo 3.12's bool fields (numpy bool)

// element types of X-macro fields, used by the Python views and the GPU layout generator
typedef enum {
  PX_TYPE_INT = 0,
  PX_TYPE_NUM,
  PX_TYPE_BYTE,
  PX_TYPE_BOOL,
  PX_TYPE_FLOAT,
  PX_TYPE_INT64
} pxtFieldType;

typedef enum { PX_JNT_FREE = 0, PX_JNT_BALL, PX_JNT_SLIDE, PX_JNT_HINGE } pxtJoint;

typedef enum {
  PX_GEOM_PLANE = 0,
  PX_GEOM_HFIELD,
  PX_GEOM_SPHERE,
  PX_GEOM_CAPSULE,
  PX_GEOM_ELLIPSOID,
  PX_GEOM_CYLINDER,
  PX_GEOM_BOX,
  PX_GEOM_MESH,
  PX_GEOM_SDF,
  PX_NGEOMTYPES
} pxtGeom;

typedef enum {
  PX_CAMLIGHT_FIXED = 0,
  PX_CAMLIGHT_TRACK,
  PX_CAMLIGHT_TRACKCOM,
  PX_CAMLIGHT_TARGETBODY,
  PX_CAMLIGHT_TARGETBODYCOM
} pxtCamLight;

typedef enum {
  PX_TRN_JOINT = 0,
  PX_TRN_JOINTINPARENT,
  PX_TRN_SLIDERCRANK,
  PX_TRN_TENDON,
  PX_TRN_SITE,
  PX_TRN_BODY,
  PX_TRN_SO3,
  PX_TRN_UNDEFINED = 1000
} pxtTrn;

typedef enum {
  PX_DYN_NONE = 0,
  PX_DYN_INTEGRATOR,
  PX_DYN_FILTER,
  PX_DYN_FILTEREXACT,
  PX_DYN_MUSCLE,
  PX_DYN_DCMOTOR,
  PX_DYN_PID,
  PX_DYN_USER
} pxtDyn;

typedef enum {
  PX_GAIN_FIXED = 0,
  PX_GAIN_AFFINE,
  PX_GAIN_MUSCLE,
  PX_GAIN_DCMOTOR,
  PX_GAIN_SO3,
  PX_GAIN_PID,
  PX_GAIN_USER
} pxtGain;

typedef enum {
  PX_BIAS_NONE = 0,
  PX_BIAS_AFFINE,
  PX_BIAS_MUSCLE,
  PX_BIAS_DCMOTOR,
  PX_BIAS_SO3,
  PX_BIAS_USER
} pxtBias;

typedef enum {
  PX_WRAP_NONE = 0,
  PX_WRAP_JOINT,
  PX_WRAP_PULLEY,
  PX_WRAP_SITE,
  PX_WRAP_SPHERE,
  PX_WRAP_CYLINDER
} pxtWrap;

typedef enum {
  PX_EQ_CONNECT = 0,
  PX_EQ_WELD,
  PX_EQ_JOINT,
  PX_EQ_TENDON,
  PX_EQ_FLEX,
  PX_EQ_FLEXVERT,
  PX_EQ_FLEXSTRAIN,
  PX_EQ_DISTANCE
} pxtEq;

typedef enum { PX_INT_EULER = 0, PX_INT_RK4, PX_INT_IMPLICIT, PX_INT_IMPLICITFAST } pxtIntegrator;
typedef enum { PX_CONE_PYRAMIDAL = 0, PX_CONE_ELLIPTIC } pxtCone;
typedef enum { PX_JAC_DENSE = 0, PX_JAC_SPARSE, PX_JAC_AUTO } pxtJacobian;
typedef enum { PX_SOL_PGS = 0, PX_SOL_CG, PX_SOL_NEWTON } pxtSolver;

// MuJoCo object types (mjtObj), used by name2id, sensors and equality constraints
typedef enum {
  PX_OBJ_UNKNOWN = 0,
  PX_OBJ_BODY,
  PX_OBJ_XBODY,
  PX_OBJ_JOINT,
  PX_OBJ_DOF,
  PX_OBJ_GEOM,
  PX_OBJ_SITE,
  PX_OBJ_CAMERA,
  PX_OBJ_LIGHT,
  PX_OBJ_FLEX,
  PX_OBJ_MESH,
  PX_OBJ_SKIN,
  PX_OBJ_HFIELD,
  PX_OBJ_TEXTURE,
  PX_OBJ_MATERIAL,
  PX_OBJ_PAIR,
  PX_OBJ_EXCLUDE,
  PX_OBJ_EQUALITY,
  PX_OBJ_TENDON,
  PX_OBJ_ACTUATOR,
  PX_OBJ_SENSOR,
  PX_OBJ_NUMERIC,
  PX_OBJ_TEXT,
  PX_OBJ_TUPLE,
  PX_OBJ_KEY,
  PX_OBJ_PLUGIN,
  PX_NOBJECT
} pxtObj;

typedef enum {
  PX_LIGHT_SPOT = 0,
  PX_LIGHT_DIRECTIONAL,
  PX_LIGHT_POINT,
  PX_LIGHT_IMAGE
} pxtLightType;

// disable flags (mjtDisableBit) and enable flags (mjtEnableBit) of MuJoCo 3.12
enum {
  PX_DSBL_CONSTRAINT = 1 << 0,
  PX_DSBL_EQUALITY = 1 << 1,
  PX_DSBL_FRICTIONLOSS = 1 << 2,
  PX_DSBL_LIMIT = 1 << 3,
  PX_DSBL_CONTACT = 1 << 4,
  PX_DSBL_SPRING = 1 << 5,
  PX_DSBL_DAMPER = 1 << 6,
  PX_DSBL_GRAVITY = 1 << 7,
  PX_DSBL_CLAMPCTRL = 1 << 8,
  PX_DSBL_WARMSTART = 1 << 9,
  PX_DSBL_FILTERPARENT = 1 << 10,
  PX_DSBL_ACTUATION = 1 << 11,
  PX_DSBL_REFSAFE = 1 << 12,
  PX_DSBL_SENSOR = 1 << 13,
  PX_DSBL_MIDPHASE = 1 << 14,
  PX_DSBL_EULERDAMP = 1 << 15,
  PX_DSBL_AUTORESET = 1 << 16,
  PX_DSBL_NATIVECCD = 1 << 17,
  PX_DSBL_ISLAND = 1 << 18,
  PX_DSBL_MULTICCD = 1 << 19,
  PX_NDISABLE = 20
};
enum {
  PX_ENBL_OVERRIDE = 1 << 0,
  PX_ENBL_ENERGY = 1 << 1,
  PX_ENBL_FWDINV = 1 << 2,
  PX_ENBL_INVDISCRETE = 1 << 3,
  PX_ENBL_SLEEP = 1 << 4,
  PX_ENBL_DIAGEXACT = 1 << 5,
  PX_NENABLE = 6
};

#endif  // PX_INCLUDE_PX_PXTYPE_H_
