// SPDX-License-Identifier: Apache-2.0
// MJCF elements outside the body tree: tendons, actuators, sensors, equality constraints,
// contact pairs and exclusions, keyframes and custom data. Parsed into the spec by parse_misc.c
// and compiled into the model by compile_misc.c; the body tree is parse.c / compile.c.
#ifndef PX_MJCF_MISC_H_
#define PX_MJCF_MISC_H_

#include "mjcf/spec.h"

// MuJoCo's defaults for a fresh element (used for the root default class)
void pxc_initTendon(pxcTendon* t);
void pxc_initActuator(pxcActuator* a);
void pxc_initEquality(pxcEquality* e);
void pxc_initPair(pxcPair* p);

// apply the attributes of an element (or a <default> child) onto s; `kind` is the element name
// for actuators (general, motor, position, ...) whose shortcut semantics apply
pxtStatus pxc_readTendon(pxcCtx* c, pxcNode* n, pxcTendon* t);
pxtStatus pxc_readActuator(pxcCtx* c, pxcNode* n, const char* kind, pxcActuator* a);
pxtStatus pxc_readEquality(pxcCtx* c, pxcNode* n, pxcEquality* e);
pxtStatus pxc_readPair(pxcCtx* c, pxcNode* n, pxcPair* p);

// top-level sections; `dflt` is the default class id in force (class attribute overrides)
pxtStatus pxc_parseTendons(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseActuators(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseSensors(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseEqualities(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseContacts(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseKeyframes(pxcCtx* c, pxcNode* section);
pxtStatus pxc_parseCustom(pxcCtx* c, pxcNode* section);

// compilation, in two passes: sizes (into *sz, whose body-tree sizes are already set), then
// arrays (into m, whose body-tree arrays, names and qpos0 are already filled)
pxtStatus pxc_sizeMisc(pxcCtx* c, pxModel* sz);
pxtStatus pxc_fillMisc(pxcCtx* c, pxModel* m);

// names of the misc objects for the model's name table, in MuJoCo's order; NULL if unnamed
const char* pxc_miscName(const pxcSpec* s, int objtype, int id);

// id of a default class by name, or -1
int pxc_findClass(const pxcSpec* s, const char* name);

#endif  // PX_MJCF_MISC_H_
