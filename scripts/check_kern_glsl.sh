#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Compiles csrc/kern/libm.h (through prelude_glsl.h) into a small compute shader that calls every
# libm function, for fp64 and fp32 (-DPX_FP32), unoptimized and with -O, and checks the SPIR-V:
#   - every OpFAdd/OpFSub/OpFMul/OpFDiv carries the NoContraction decoration;
#   - no GLSL.std.450 Sin/Cos/Tan/Asin/Acos/Atan/Atan2/Exp/Exp2/Log/Log2/Pow/InverseSqrt/Fma;
#   - the fp32 module declares neither the Float64 nor the Int64 capability.
# Then compiles the stage headers no shader includes yet (csrc/kern/tendon.h, transmission.h,
# sensor.h, constraint.h, solver.h, ...)
# through shaders/layout.glsl and lints them with scripts/spirv_lint.py --strict.
# Needs glslc and spirv-dis (Debian: glslc, spirv-tools). Exits nonzero on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/libm_check.comp" <<'EOF'
#version 460
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif
#include "kern/prelude_glsl.h"
// glslang cannot paste `1.0##lf`; until the prelude spells PX_R another way, use the form the
// shaders use (double(x) of a literal keeps its double value; checked below)
#ifndef PX_FP32
#undef PX_R
#define PX_R(x) double(x)
#endif
#include "kern/libm.h"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Args { PX_REAL arg[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Res { PX_REAL res[]; };

// every function on this invocation's pair of arguments, results to the buffer
void main() {
  int i = int(gl_GlobalInvocationID.x);
  PX_REAL x = arg[2 * i];
  PX_REAL y = arg[2 * i + 1];
  int o = 12 * i;
  res[o + 0] = pxk_sin(x);
  res[o + 1] = pxk_cos(x);
  res[o + 2] = pxk_tan(x);
  res[o + 3] = pxk_asin(x);
  res[o + 4] = pxk_acos(x);
  res[o + 5] = pxk_atan(x);
  res[o + 6] = pxk_atan2(y, x);
  res[o + 7] = pxk_exp(x);
  res[o + 8] = pxk_log(x);
  res[o + 9] = pxk_pow(x, y);
  res[o + 10] = pxk_floor(x);
  res[o + 11] = pxk_floor(y);
}
EOF

# the integration stages (csrc/kern/integrate.h) through the generated layout, as a stage shader
cat >"$tmp/integrate_check.comp" <<'EOF'
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif
layout(local_size_x_id = 0) in;
#include "layout.glsl"
#include "kern/prelude_glsl.h"
#include "kern/integrate.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);
  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));
  if (pxm.opt_integrator >= PX_INT_IMPLICIT) {
    pxk_implicitDeriv(PX_MDARG);
    pxk_implicitSolve(PX_MDARGC 0);
  } else {
    pxk_euler(PX_MDARGC 0);
  }
  pxk_advanceAct(PX_MDARG);
  pxk_advanceVel(PX_MDARG);
  pxk_advancePos(PX_MDARG);
  pxk_normalizeQuat(PX_MDARG);
}
EOF

fail=0

# stage_shader NAME HEADER...: starts $tmp/NAME_check.comp, a compute shader that includes the
# generated layout, the GLSL prelude and the stage headers named, with PX_CHECK_BEGIN() for the
# first lines of its main() (this workgroup's world, as the stage shaders set it up); the caller
# appends the rest. With STAGE_EFC=1 the layout declares the constraint blocks (PX_LAYOUT_EFC)
stage_shader() {
  local name=$1 h
  shift
  {
    cat <<'EOF'
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif
layout(local_size_x_id = 0) in;
EOF
    [ "${STAGE_EFC:-0}" = 1 ] && echo "#define PX_LAYOUT_EFC 1"
    cat <<'EOF'
#include "shaders/layout.glsl"
#include "kern/prelude_glsl.h"
#define PX_CHECK_BEGIN()                      \
  PxParams p = pxpush.params;                 \
  int wg = int(gl_WorkGroupID.x);             \
  if (wg >= p.nworld - pxpush.world0) return; \
  pxm = p.model;                              \
  pxd = p.data;                               \
  pxw = pxpush.world0 + wg;                   \
  pxzero = PX_REAL(min(pxw, 0))
EOF
    for h in "$@"; do echo "#include \"$h\""; done
  } >"$tmp/${name}_check.comp"
}

# check_stage NAME WHAT OPT...: compiles $tmp/NAME_check.comp (a stage header group through the
# generated layout, as the shaders are built) for fp64 and fp32 at each optimization level OPT,
# and lints every module with scripts/spirv_lint.py --strict; on a finding, a -g build names the
# source lines. Sets fail=1 on any failure.
check_stage() {
  local name=$1 what=$2
  shift 2
  local variant opt spv sfx
  local -a defs
  for variant in f64 f32; do
    defs=()
    [ $variant = f32 ] && defs=(-DPX_FP32)
    for opt in "$@"; do
      # modules are named NAME_VARIANT.spv, with the level appended where a group has two
      sfx=$opt
      [ $# -eq 1 ] && sfx=""
      spv="$tmp/${name}_$variant$sfx.spv"
      if ! glslc -fshader-stage=compute --target-env=vulkan1.2 $opt "${defs[@]}" -Icsrc -I. \
        -o "$spv" "$tmp/${name}_check.comp"; then
        echo "${name}_$variant$sfx: $what does not compile"
        fail=1
        continue
      fi
      if ! python3 scripts/spirv_lint.py --strict "$spv"; then
        echo "${name}_$variant$sfx: $what fail the SPIR-V lint"
        glslc -fshader-stage=compute --target-env=vulkan1.2 $opt -g "${defs[@]}" -Icsrc -I. \
          -o "$tmp/${name}_${variant}_g.spv" "$tmp/${name}_check.comp" &&
          python3 scripts/spirv_lint.py --strict "$tmp/${name}_${variant}_g.spv" |
          grep ": \(warning\|error\): " || true
        fail=1
      fi
    done
  done
}
for src in libm_check integrate_check; do
for variant in fp64 fp32; do
  defs=""
  if [ "$variant" = fp32 ]; then defs="-DPX_FP32"; fi
  for opt in -O0 -O; do
    name="$variant$opt"
    [ "$src" = libm_check ] || name="$src-$variant$opt"
    glslc -fshader-stage=compute --target-env=vulkan1.2 -std=460 $opt $defs -Icsrc -Ishaders \
      -o "$tmp/$name.spv" "$tmp/$src.comp"
    spirv-dis --raw-id "$tmp/$name.spv" -o "$tmp/$name.spvasm"

    # float arithmetic without NoContraction
    report=$(awk '
      /OpDecorate %[0-9]+ NoContraction/ { nc[$2] = 1 }
      $2 == "=" && $3 ~ /^Op(FAdd|FSub|FMul|FDiv)$/ { ops[$1] = $3; n++ }
      END {
        bad = 0
        for (id in ops) if (!(id in nc)) { print "  " ops[id] " " id " lacks NoContraction"; bad++ }
        print n " float ops, " bad " without NoContraction"
      }' "$tmp/$name.spvasm")
    echo "$name: $(echo "$report" | tail -n 1)"
    if echo "$report" | grep -q "lacks"; then
      echo "$report" | grep "lacks" | head -n 20
      fail=1
    fi

    # loose-precision built-ins
    if grep -En "OpExtInst %[0-9]+ %[0-9]+ (Sin|Cos|Tan|Asin|Acos|Atan|Atan2|Exp|Exp2|Log|Log2|Pow|InverseSqrt|Fma)( |$)" \
      "$tmp/$name.spvasm"; then
      echo "$name: uses a GLSL.std.450 built-in with loose precision"
      fail=1
    fi

    # double constants must keep their double values (a literal that went through float shows
    # up rounded to float): every PX_R literal of libm.h's fp64 part that the module holds
    if [ "$name" = fp64-O0 ] && ! python3 - "$tmp/$name.spvasm" csrc/kern/libm.h <<'PY'; then
import re, struct, sys
asm = open(sys.argv[1]).read()
consts = set()
for t in re.findall(r"(%\d+) = OpTypeFloat 64", asm):
    consts |= {abs(float(v)) for v in re.findall(r"= OpConstant " + t + r" (\S+)", asm)}
src = re.sub(r"#ifdef PX_FP32.*?#else", "", open(sys.argv[2]).read(), flags=re.S)
lits = {abs(float(v)) for v in re.findall(r"PX_R\(([-+0-9.eE]+)\)", src)}
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
lossy = sorted(v for v in lits if v not in consts and f32(v) != v and f32(v) in consts)
print("%s: %d of %d double literals found exactly, %d rounded to float"
      % (sys.argv[1].split("/")[-1][:-7], len(lits & consts), len(lits), len(lossy)))
for v in lossy:
    print("  %r became %r" % (v, f32(v)))
sys.exit(1 if lossy or len(lits & consts) < len(lits) // 2 else 0)
PY
      fail=1
    fi

    # fp32 must not need fp64 or int64
    if [ "$variant" = fp32 ] && grep -En "OpCapability (Float64|Int64)$" "$tmp/$name.spvasm"; then
      echo "$name: declares a 64-bit capability"
      fail=1
    fi
  done
done
done

# the stage headers that no shaders/*.comp includes yet (csrc/kern/tendon.h, transmission.h):
# compiled through the generated layout as the shaders are, fp64 and fp32, -O0 and -O, and
# linted as the embedded modules are (scripts/spirv_lint.py --strict)
stage_shader stages kern/tendon.h kern/transmission.h
cat >>"$tmp/stages_check.comp" <<'EOF'
void main() {
  PX_CHECK_BEGIN();
  pxk_tendon(PX_MDARG);
  PX_SYNC();
  pxk_transmission(PX_MDARG);
  PX_SYNC();
  pxk_tendonVelocity(PX_MDARG);
}
EOF
check_stage stages "tendon.h/transmission.h" -O0 -O

# the smooth-dynamics stages (csrc/kern/smooth.h, jac.h) through the generated layout, every
# entry point called, fp64 and fp32, linted like the shaders (scripts/spirv_lint.py --strict)
stage_shader smooth kern/smooth.h
cat >>"$tmp/smooth_check.comp" <<'EOF'
PXK_DEFINE_MULM(pxk_mulM_check, qfrc_inverse, qacc)
PXK_DEFINE_APPLYFT(pxk_applyFT_check, qfrc_inverse)
void main() {
  PX_CHECK_BEGIN();
  precise PX_REAL f[3];
  precise PX_REAL v[6];
  for (int k = 0; k < 3; k++) f[k] = D(xfrc_applied, 6 + k);
  pxk_makeM();
  PX_SYNC();
  pxk_factorM();
  PX_SYNC();
  pxk_comVel();
  PX_SYNC();
  pxk_rneBias();
  PX_SYNC();
  pxk_subtreeVel();
  PX_SYNC();
  pxk_fwdAcceleration();
  PX_SYNC();
  pxk_fwdConstraintNone();
  PX_SYNC();
  pxk_mulM_check(0, 0);
  pxk_applyFT_check(f, f, f, 1, 1, 1);
  pxk_objectVelocity(v, PX_OBJ_SITE, 0, 1);
  for (int k = 0; k < 6; k++) D(cacc, k) = v[k];
}
EOF
check_stage smooth "smooth.h/jac.h" -O

# the force stages (csrc/kern/passive.h, actuation.h) through the generated layout, as the stage
# shaders are built (scripts/build_shaders.sh flags), fp64 and fp32, each -O module linted by
# spirv_lint.py --strict (a -g build names the source lines of any finding)
stage_shader forces kern/passive.h kern/actuation.h
cat >>"$tmp/forces_check.comp" <<'EOF'
void main() {
  PX_CHECK_BEGIN();
  pxk_passive(PX_MDARG);
  PX_SYNC();
  pxk_actuation(PX_MDARG);
}
EOF
check_stage forces "passive.h/actuation.h" -O

# the velocity derivative of the bias force (csrc/kern/derivative.h), the fluid force and muscle
# gain derivatives (csrc/kern/fluidderiv.h) and the tendon armature bias (csrc/kern/tendonbias.h)
# through the generated layout, fp64 and fp32, linted --strict
stage_shader deriv kern/derivative.h kern/fluidderiv.h kern/tendonbias.h
cat >>"$tmp/deriv_check.comp" <<'EOF'
layout(std430, set = 1, binding = 0) buffer DerivOut { PX_REAL deriv_out[]; };
void main() {
  PX_CHECK_BEGIN();
  pxk_tendonBias();
  PX_SYNC();
  pxk_rneVel();
  if (PX_LANE == 0) {
    pxk_fluidVel();
    PX_REAL prm[10];
    for (int k = 0; k < 10; k++) prm[k] = deriv_out[k];
    deriv_out[10] = pxk_fdMuscleGainVel(deriv_out[11], deriv_out[12], deriv_out[13], deriv_out[14],
                                        deriv_out[15], prm);
  }
}
EOF
check_stage deriv "derivative.h/fluidderiv.h/tendonbias.h" -O0 -O

# the post-step quantities and energy (csrc/kern/post.h) through the generated layout, every
# entry point called, fp64 and fp32, -O, linted by spirv_lint.py --strict
stage_shader post kern/post.h
cat >>"$tmp/post_check.comp" <<'EOF'
PXK_DEFINE_RNE(pxk_rne_check, qfrc_inverse)
void main() {
  PX_CHECK_BEGIN();
  precise PX_REAL pt[3];
  precise PX_REAL off[3];
  precise PX_REAL pl[3];
  precise PX_REAL jp[3];
  precise PX_REAL jr[3];
  precise PX_REAL a[6];
  for (int k = 0; k < 3; k++) pt[k] = D(xipos, 3 + k);
  pxk_energyPosStage();
  PX_SYNC();
  pxk_energyVelStage();
  PX_SYNC();
  pxk_rnePostConstraint();
  PX_SYNC();
  pxk_rne_check(1);
  PX_SYNC();
  pxk_objectAcceleration(a, PX_OBJ_SITE, 0, 1);
  pxk_jacOffset(off, pt, 1);
  pxk_jacDotPointVel(pl, pt, 1);
  pxk_jacDotColumn(jp, jr, off, pl, 0);
  for (int k = 0; k < 3; k++) {
    D(qfrc_smooth, k) = jp[k];
    D(qfrc_smooth, 3 + k) = jr[k];
  }
  for (int k = 0; k < 6; k++) D(qacc_smooth, k) = a[k];
}
EOF
check_stage post "post.h" -O

# collision (csrc/kern/collide*.h): the driver with every narrow-phase routine and the geom
# distance (collide_dist.h), through the generated layout (its per-world contact records and
# collision scratch, bound by pxl_collisionWorld), fp64 and fp32, linted like the shaders
stage_shader collide
cat >>"$tmp/collide_check.comp" <<'EOF'
#include "kern/collide.h"
#include "kern/collide_dist.h"
void main() {
  PX_CHECK_BEGIN();
  pxl_collisionWorld(p);
  pxk_collision();
  precise PX_REAL fromto[6];
  precise PX_REAL dist = pxk_geomDistance(0, 1, D(qpos, 0), fromto);
  for (int k = 0; k < 6; k++) D(qvel, k) = fromto[k];
  D(qvel, 6) = dist;
}
EOF
check_stage collide "collide*.h" -O0

# the Gymnasium task functions (csrc/tasks/tasks.h: pre-step position, observation, reward)
# through the generated layout, every task through the dispatchers, fp64 and fp32, linted
stage_shader tasks tasks/tasks.h
cat >>"$tmp/tasks_check.comp" <<'EOF'
void main() {
  PX_CHECK_BEGIN();
  int task = int(D(qpos, 0));
  PX_REAL prm[PXT_NPRM];
  for (int i = 0; i < PXT_NPRM; i++) prm[i] = D(qvel, i);
  PX_REAL pre[2];
  pxt_pre(task, prm, pre);
  PX_REAL obs[PXT_MAXOBS];
  pxt_obs(task, prm, obs);
  PX_REAL res[PXT_NOUT];
  pxt_reward(task, prm, pre, res);
  for (int i = 0; i < PXT_MAXOBS; i++) D(cacc, i) = obs[i];
  for (int i = 0; i < PXT_NOUT; i++) D(qacc_smooth, i) = res[i];
}
EOF
check_stage tasks "tasks/tasks.h" -O0 -O
# ray casting (csrc/kern/ray.h): mj_ray over every geom type, through the generated layout
stage_shader ray kern/ray.h
cat >>"$tmp/ray_check.comp" <<'EOF'
void main() {
  PX_CHECK_BEGIN();
  precise PX_REAL pnt[3];
  precise PX_REAL vec[3];
  for (int k = 0; k < 3; k++) {
    pnt[k] = D(qpos, k);
    vec[k] = D(qvel, k);
  }
  int grp[6] = int[6](1, 1, 1, 1, 1, 1);
  int gid[1];
  precise PX_REAL nrm[3];
  precise PX_REAL x = pxk_ray(pnt, vec, grp, 1, 1, -1, gid, nrm);
  D(qacc, 0) = x;
  for (int k = 0; k < 3; k++) D(qacc, 1 + k) = nrm[k];
}
EOF
check_stage ray "ray.h" -O0 -O

# the sensor stages (csrc/kern/sensor.h, pxk_sensors: the three stages with their lazy quantities,
# geom distance sensors included, unlike shaders/sensor.comp) through the generated layout (its
# sensordata and the collision scratch of the geom distance sensors), fp64 and fp32, -O0 (as collision: spirv-opt
# crashes on the whole collision code at -O), linted --strict; needs the layout regenerated with
# sensordata; with the history buffers (csrc/kern/history.h, sensor_history.h: reset, delayed
# controls, the control and sensor updates)
stage_shader sensor
cat >>"$tmp/sensor_check.comp" <<'EOF'
#include "kern/collide.h"
#include "kern/sensor_history.h"
void main() {
  PX_CHECK_BEGIN();
  pxl_collisionWorld(p);
  pxk_sensors(D(qpos, 0), D(qpos, 1));
  D(qvel, 0) = PX_TOREAL(pxk_sensorSupported(0));
  pxk_histReset();
  D(qvel, 1) = pxk_histCtrlIn(0);
  pxk_histAdvanceCtrl();
  D(qvel, 2) = PX_TOREAL(pxk_histAdvanceSensors(pxk_histForwardLazy()));
}
EOF
check_stage sensor "sensor.h/history.h/sensor_history.h" -O0

# the constraint stage (csrc/kern/constraint.h: rows, reference accelerations, adhesion; solver.h:
# islands, Newton, CG, PGS, noslip) through the generated layout with its constraint blocks
# (PX_LAYOUT_EFC: the PX_EFC_FIELDS and PX_EFC_SCRATCH arrays, efc_n, the model statistics),
# forward.c's constraint sequence after collision, fp64 and fp32, -O0 and -O, linted --strict
STAGE_EFC=1 stage_shader constraint kern/constraint.h kern/solver.h
cat >>"$tmp/constraint_check.comp" <<'EOF'
void main() {
  PX_CHECK_BEGIN();
  pxl_collisionWorld(p);
  pxl_efcWorld(p);
  if (pxk_cnAdhesion() != 0) pxk_fwdAcceleration();
  pxk_makeConstraint();
  pxk_island();
  pxk_projectConstraint();
  pxk_referenceConstraint();
  pxk_fwdConstraint();
}
EOF
check_stage constraint "constraint.h/solver.h" -O0 -O

if [ "$fail" != 0 ]; then
  echo "check_kern_glsl: FAILED"
  exit 1
fi
echo "check_kern_glsl: ok"
