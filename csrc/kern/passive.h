// SPDX-License-Identifier: Apache-2.0
// Passive forces: MuJoCo 3.12's mj_passive (engine_passive.c) in the kernel dialect.
//
//   reads:  m->jnt_*, dof_damping/dampingpoly, tendon_stiffness/stiffnesspoly/damping/
//           dampingpoly/lengthspring, ten_J_rownnz/rowadr/colind, actuator_damping/dampingpoly/
//           gear/outadr/trntype/trnid (actuator damping inherited by joints and tendons),
//           body_gravcomp/mass/inertia/rootid/weldid/dofnum/dofadr/geomnum/geomadr, dof_parentid,
//           geom_type/size/fluid, opt (gravity, wind, density, viscosity, disableflags),
//           d->qpos, qvel, ten_length, ten_J, ten_velocity, xipos, ximat, subtree_com, cdof,
//           cvel, geom_xpos, geom_xmat
//   writes: d->qfrc_spring, qfrc_damper, qfrc_gravcomp, qfrc_fluid, qfrc_passive (and zeroes
//           qfrc_adhesion, which the CPU's contact stage fills: constraint.h pxk_cnAdhesion)
// Parts: joint springs (hinge, slide, ball and free, with the stiffness polynomial), dof dampers
// (with the damping polynomial and the damping of actuators on the joint), tendon springs
// (deadband between the two lengthspring values) and dampers, body gravity compensation, and
// the fluid forces of the inertia-box and ellipsoid models. Flex elasticity, passive contacts and
// adhesion need objects phalanx does not have yet (flexes, contacts), plugins and callbacks are
// not supported; sleeping is not modelled (every tree is awake).
// Ordering: per-joint and per-dof parts are lane-strided (disjoint outputs); the tendon, gravity
// compensation and fluid parts scatter into shared dofs and run on lane 0 in MuJoCo's order.
#ifndef PX_KERN_PASSIVE_H_
#define PX_KERN_PASSIVE_H_

#include "kern/forcemath.h"

// targets of pxk_psApplyFT
#define PXK_PS_GRAVCOMP 0
#define PXK_PS_FLUID 1

// damping that actuators contribute to joint (istendon = 0) or tendon `id`, with their polynomial
// coefficients added into poly (mj_actuatorDamping)
PX_FN PX_REAL pxk_psActuatorDamping(PX_MDC int istendon, int id, PX_INOUT(PX_REAL, poly, 2)) {
  int aid = istendon != 0 ? M(tendon_actuatorid, id) : M(jnt_actuatorid, id);
  if (aid == -1) return PX_ZERO;
  PXR damping = PX_ZERO;
  if (aid >= 0) {
    // a single actuator
    PXR g = M(actuator_gear, 6 * M(actuator_outadr, aid));
    PXR gear2 = g * g;
    damping = M(actuator_damping, aid) * gear2;
    for (int k = 0; k < 2; k++) poly[k] = poly[k] + M(actuator_dampingpoly, 2 * aid + k) * gear2;
  } else {
    // several: every actuator on this joint or tendon
    for (int a = 0; a < MS(nu); a++) {
      if (M(actuator_trnid, 2 * a) != id) continue;
      int trn = M(actuator_trntype, a);
      if (istendon == 0 && trn != PX_TRN_JOINT && trn != PX_TRN_JOINTINPARENT) continue;
      if (istendon != 0 && trn != PX_TRN_TENDON) continue;
      PXR g = M(actuator_gear, 6 * M(actuator_outadr, a));
      PXR gear2 = g * g;
      damping = damping + M(actuator_damping, a) * gear2;
      for (int k = 0; k < 2; k++) poly[k] = poly[k] + M(actuator_dampingpoly, 2 * a + k) * gear2;
    }
  }
  return damping;
}

// add a dof force to the gravcomp or fluid vector
PX_FN void pxk_psAddTo(PX_MDC int target, int dof, PX_REAL v) {
  if (target == PXK_PS_GRAVCOMP) {
    PXR s = D(qfrc_gravcomp, dof) + v;
    D(qfrc_gravcomp, dof) = s;
  } else {
    PXR s = D(qfrc_fluid, dof) + v;
    D(qfrc_fluid, dof) = s;
  }
}

// force (and, when hastorque, torque) at a global point of `body`, mapped to dof forces through
// the body's Jacobian and added to the target (mj_applyFT). Only the dofs of the body's ancestor
// chain get nonzero columns; each gets J' f as mju_mulMatTVec forms it (rows of zero force
// skipped), then Jr' t, in that order.
PX_FN void pxk_psApplyFT(PX_MDC PX_IN(PX_REAL, force, 3), PX_IN(PX_REAL, torque, 3), int hastorque,
                         PX_IN(PX_REAL, point, 3), int body, int target) {
  PXR offset[3];
  PXR cd[6];
  PXR rot[3];
  PXR tmp[3];
  PXR jp[3];
  int root = M(body_rootid, body);
  for (int k = 0; k < 3; k++) offset[k] = point[k] - D(subtree_com, 3 * root + k);
  int b = M(body_weldid, body);
  if (M(body_dofnum, b) == 0) return;
  int i = M(body_dofadr, b) + M(body_dofnum, b) - 1;
  while (i >= 0) {
    PXK_GET(6, cd, D, cdof, 6 * i);
    rot[0] = cd[0];
    rot[1] = cd[1];
    rot[2] = cd[2];
    pxk_cross(tmp, rot, offset);
    jp[0] = cd[3] + tmp[0];
    jp[1] = cd[4] + tmp[1];
    jp[2] = cd[5] + tmp[2];
    PXR qf = PX_ZERO;
    for (int r = 0; r < 3; r++) {
      if (force[r] != PX_R(0.0)) qf = qf + jp[r] * force[r];
    }
    pxk_psAddTo(PX_MDARGC target, i, qf);
    if (hastorque != 0) {
      PXR qt = PX_ZERO;
      for (int r = 0; r < 3; r++) {
        if (torque[r] != PX_R(0.0)) qt = qt + rot[r] * torque[r];
      }
      pxk_psAddTo(PX_MDARGC target, i, qt);
    }
    i = M(dof_parentid, i);
  }
}

// 6D velocity of a frame at pos with orientation rot, attached to `body`, in the local frame
// (mj_objectVelocity with flg_local); zero for bodies welded to a dof-less body
PX_FN void pxk_psObjectVelocity(PX_MDC PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, pos, 3),
                                PX_IN(PX_REAL, rot, 9), int body) {
  PXR vel[6];
  PXR dif[3];
  PXR cros[3];
  PXR w[3];
  PXR lin[3];
  PXR r[3];
  if (M(body_dofnum, M(body_weldid, body)) == 0) {
    for (int k = 0; k < 6; k++) res[k] = PX_ZERO;
    return;
  }
  int root = M(body_rootid, body);
  PXK_GET(6, vel, D, cvel, 6 * body);
  for (int k = 0; k < 3; k++) dif[k] = pos[k] - D(subtree_com, 3 * root + k);
  w[0] = vel[0];
  w[1] = vel[1];
  w[2] = vel[2];
  pxk_cross(cros, dif, w);
  for (int k = 0; k < 3; k++) lin[k] = vel[3 + k] - cros[k];
  // rotate to the local frame: rot' * v
  for (int k = 0; k < 3; k++) r[k] = rot[k] * w[0] + rot[3 + k] * w[1] + rot[6 + k] * w[2];
  res[0] = r[0];
  res[1] = r[1];
  res[2] = r[2];
  for (int k = 0; k < 3; k++) r[k] = rot[k] * lin[0] + rot[3 + k] * lin[1] + rot[6 + k] * lin[2];
  res[3] = r[0];
  res[4] = r[1];
  res[5] = r[2];
}

// the wind's translational velocity in a local frame at pos with orientation rot, for a body
// whose root is `root` (mju_transformSpatial of the motion vector (0, wind) as MuJoCo forms it)
PX_FN void pxk_psLocalWind(PX_MDC PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, pos, 3),
                           PX_IN(PX_REAL, rot, 9), int root) {
  PXR dif[3];
  PXR cros[3];
  PXR zero3[3];
  PXR lin[3];
  for (int k = 0; k < 3; k++) {
    dif[k] = pos[k] - D(subtree_com, 3 * root + k);
    zero3[k] = PX_ZERO;
  }
  pxk_cross(cros, dif, zero3);
  for (int k = 0; k < 3; k++) lin[k] = MOPT(wind)[k] - cros[k];
  for (int k = 0; k < 3; k++) res[k] = rot[k] * lin[0] + rot[3 + k] * lin[1] + rot[6 + k] * lin[2];
}

// a local force/torque lfrc (torque, then force, in the frame rot) applied at pos on body, as
// fluid force (the last step of both fluid models)
PX_FN void pxk_psApplyLocalFT(PX_MDC PX_IN(PX_REAL, lfrc, 6), PX_IN(PX_REAL, rot, 9),
                              PX_IN(PX_REAL, pos, 3), int body) {
  PXR f3[3];
  PXR frc[3];
  PXR trq[3];
  f3[0] = lfrc[0];
  f3[1] = lfrc[1];
  f3[2] = lfrc[2];
  pxk_mulMatVec3(trq, rot, f3);
  f3[0] = lfrc[3];
  f3[1] = lfrc[4];
  f3[2] = lfrc[5];
  pxk_mulMatVec3(frc, rot, f3);
  pxk_psApplyFT(PX_MDARGC frc, trq, 1, pos, body, PXK_PS_FLUID);
}

// the 6D velocity (rotation, translation) of a frame (pos, rot) moving with body, in that frame,
// relative to the wind (the fluid models' local velocity)
PX_FN void pxk_psWindVelocity(PX_MDC PX_OUT(PX_REAL, lvel, 6), PX_IN(PX_REAL, pos, 3),
                              PX_IN(PX_REAL, rot, 9), int body) {
  PXR lwind[3];
  pxk_psObjectVelocity(PX_MDARGC lvel, pos, rot, body);
  pxk_psLocalWind(PX_MDARGC lwind, pos, rot, M(body_rootid, body));
  for (int k = 0; k < 3; k++) lvel[3 + k] = lvel[3 + k] - lwind[k];
}

// the inertia-box model's setup for body i: the box's semi-axes, the com velocity relative to the
// wind in the body's inertial frame, and that frame (pos, rot)
PX_FN void pxk_psBoxFluidFrame(PX_MDC int i, PX_OUT(PX_REAL, box, 3), PX_OUT(PX_REAL, lvel, 6),
                               PX_OUT(PX_REAL, pos, 3), PX_OUT(PX_REAL, rot, 9)) {
  PXR mass = M(body_mass, i);
  PXR i0 = M(body_inertia, 3 * i);
  PXR i1 = M(body_inertia, 3 * i + 1);
  PXR i2 = M(body_inertia, 3 * i + 2);
  PXR e0 = i1 + i2 - i0;
  PXR e1 = i0 + i2 - i1;
  PXR e2 = i0 + i1 - i2;
  PXR s0 = pxk_fmMax(PXK_MINVAL, e0) / mass * PX_R(6.0);
  PXR s1 = pxk_fmMax(PXK_MINVAL, e1) / mass * PX_R(6.0);
  PXR s2 = pxk_fmMax(PXK_MINVAL, e2) / mass * PX_R(6.0);
  box[0] = PX_SQRT(s0);
  box[1] = PX_SQRT(s1);
  box[2] = PX_SQRT(s2);

  // local velocity relative to the wind
  PXK_GET(3, pos, D, xipos, 3 * i);
  PXK_GET(9, rot, D, ximat, 9 * i);
  pxk_psWindVelocity(PX_MDARGC lvel, pos, rot, i);
}

// fluid force and torque on body i from its equivalent inertia box (mj_inertiaBoxFluidModel)
PX_FN void pxk_psInertiaBoxFluid(PX_MDC int i) {
  PXR box[3];
  PXR lvel[6];
  PXR lfrc[6];
  PXR pos[3];
  PXR rot[9];
  pxk_psBoxFluidFrame(PX_MDARGC i, box, lvel, pos, rot);
  for (int k = 0; k < 6; k++) lfrc[k] = PX_ZERO;

  // viscous force and torque of the equivalent sphere
  PXR visc = MOPT(viscosity);
  if (visc > PX_R(0.0)) {
    PXR diam = (box[0] + box[1] + box[2]) / PX_R(3.0);
    PXR ca = -PXK_FM_PI * diam * diam * diam * visc;
    PXR cl = PX_R(-3.0) * PXK_FM_PI * diam * visc;
    for (int k = 0; k < 3; k++) {
      lfrc[k] = lvel[k] * ca;
      lfrc[3 + k] = lvel[3 + k] * cl;
    }
  }

  // quadratic drag force and torque
  PXR dens = MOPT(density);
  if (dens > PX_R(0.0)) {
    lfrc[3] = lfrc[3] - PX_R(0.5) * dens * box[1] * box[2] * pxk_abs(lvel[3]) * lvel[3];
    lfrc[4] = lfrc[4] - PX_R(0.5) * dens * box[0] * box[2] * pxk_abs(lvel[4]) * lvel[4];
    lfrc[5] = lfrc[5] - PX_R(0.5) * dens * box[0] * box[1] * pxk_abs(lvel[5]) * lvel[5];
    PXR b0 = box[0] * box[0] * box[0] * box[0];
    PXR b1 = box[1] * box[1] * box[1] * box[1];
    PXR b2 = box[2] * box[2] * box[2] * box[2];
    lfrc[0] = lfrc[0] - dens * box[0] * (b1 + b2) * pxk_abs(lvel[0]) * lvel[0] / PX_R(64.0);
    lfrc[1] = lfrc[1] - dens * box[1] * (b0 + b2) * pxk_abs(lvel[1]) * lvel[1] / PX_R(64.0);
    lfrc[2] = lfrc[2] - dens * box[2] * (b0 + b1) * pxk_abs(lvel[2]) * lvel[2] / PX_R(64.0);
  }

  // to the global frame, applied at the body's center of mass
  pxk_psApplyLocalFT(PX_MDARGC lfrc, rot, pos, i);
}

// fluid forces of the ellipsoid model: added mass (mj_addedMassForces without accelerations) and
// lift and drag (mj_viscousForces), added into lfrc
PX_FN void pxk_psEllipsoidForces(PX_INOUT(PX_REAL, lfrc, 6), PX_IN(PX_REAL, lvel, 6),
                                 PX_IN(PX_REAL, size, 3), PX_IN(PX_REAL, coef, 12), PX_REAL dens,
                                 PX_REAL visc) {
  PXR lin[3];
  PXR ang[3];
  PXR lmom[3];
  PXR amom[3];
  PXR am_force[3];
  PXR am_torque1[3];
  PXR am_torque2[3];
  for (int k = 0; k < 3; k++) {
    lin[k] = lvel[3 + k];
    ang[k] = lvel[k];
  }

  // added mass: momenta of the fluid moving with the body
  for (int k = 0; k < 3; k++) {
    lmom[k] = dens * coef[6 + k] * lin[k];
    amom[k] = dens * coef[9 + k] * ang[k];
  }
  pxk_cross(am_force, lmom, ang);
  pxk_cross(am_torque1, lmom, lin);
  pxk_cross(am_torque2, amom, ang);
  for (int k = 0; k < 3; k++) lfrc[k] = lfrc[k] + am_torque1[k];
  for (int k = 0; k < 3; k++) lfrc[k] = lfrc[k] + am_torque2[k];
  for (int k = 0; k < 3; k++) lfrc[3 + k] = lfrc[3 + k] + am_force[k];

  // lift and drag
  PXR blunt = coef[1];
  PXR slender = coef[2];
  PXR angdrag = coef[3];
  PXR kutta = coef[4];
  PXR magnus = coef[5];
  PXR c43 = PX_R(4.0) / PX_R(3.0);
  PXR volume = c43 * PXK_FM_PI * size[0] * size[1] * size[2];
  PXR d_max = pxk_fmMax(pxk_fmMax(size[0], size[1]), size[2]);
  PXR d_min = pxk_fmMin(pxk_fmMin(size[0], size[1]), size[2]);
  PXR d_mid = size[0] + size[1] + size[2] - d_max - d_min;
  PXR a_max = PXK_FM_PI * d_max * d_mid;

  PXR magnus_force[3];
  pxk_cross(magnus_force, ang, lin);
  PXR mscl = magnus * dens * volume;
  for (int k = 0; k < 3; k++) magnus_force[k] = magnus_force[k] * mscl;

  // projection of the body along the velocity
  PXR s12 = size[1] * size[2];
  PXR s20 = size[2] * size[0];
  PXR s01 = size[0] * size[1];
  PXR q12 = (s12 * s12) * (s12 * s12);
  PXR q20 = (s20 * s20) * (s20 * s20);
  PXR q01 = (s01 * s01) * (s01 * s01);
  PXR proj_denom = q12 * (lin[0] * lin[0]) + q20 * (lin[1] * lin[1]) + q01 * (lin[2] * lin[2]);
  PXR p0 = s12 * lin[0];
  PXR p1 = s20 * lin[1];
  PXR p2 = s01 * lin[2];
  PXR proj_num = p0 * p0 + p1 * p1 + p2 * p2;
  PXR ratio = proj_denom / pxk_fmMax(PXK_MINVAL, proj_num);
  PXR a_proj = PXK_FM_PI * PX_SQRT(ratio);
  PXR nrm[3];
  nrm[0] = (s12 * s12) * lin[0];
  nrm[1] = (s20 * s20) * lin[1];
  nrm[2] = (s01 * s01) * lin[2];
  PXR speed = pxk_fmNorm3(lin);
  PXR cden = speed * proj_denom;
  PXR cos_alpha = proj_num / pxk_fmMax(PXK_MINVAL, cden);
  PXR kutta_circ[3];
  pxk_cross(kutta_circ, nrm, lin);
  PXR kscl = kutta * dens * cos_alpha * a_proj;
  for (int k = 0; k < 3; k++) kutta_circ[k] = kutta_circ[k] * kscl;
  PXR kutta_force[3];
  pxk_cross(kutta_force, kutta_circ, lin);

  // Stokes drag of the equivalent sphere, quadratic angular drag from the moments of inertia
  PXR c23 = PX_R(2.0) / PX_R(3.0);
  PXR eq_d = c23 * (size[0] + size[1] + size[2]);
  PXR lin_visc_force_coef = PX_R(3.0) * PXK_FM_PI * eq_d;
  PXR lin_visc_torq_coef = PXK_FM_PI * eq_d * eq_d * eq_d;
  PXR c815 = PX_R(8.0) / PX_R(15.0);
  PXR dmax4 = (d_max * d_max) * (d_max * d_max);
  PXR i_max = c815 * PXK_FM_PI * d_mid * dmax4;
  PXR ii[3];
  for (int k = 0; k < 3; k++) {
    PXR dd = pxk_fmMax(size[(k + 1) % 3], size[(k + 2) % 3]);
    PXR dd4 = (dd * dd) * (dd * dd);
    ii[k] = c815 * PXK_FM_PI * size[k] * dd4;
  }
  PXR mom_visc[3];
  for (int k = 0; k < 3; k++) {
    mom_visc[k] = ang[k] * (angdrag * ii[k] + slender * (i_max - ii[k]));
  }
  PXR drag_lin =
      visc * lin_visc_force_coef + dens * speed * (a_proj * blunt + slender * (a_max - a_proj));
  PXR mnorm = pxk_fmNorm3(mom_visc);
  PXR drag_ang = visc * lin_visc_torq_coef + dens * mnorm;

  for (int k = 0; k < 3; k++) lfrc[k] = lfrc[k] - drag_ang * ang[k];
  for (int k = 0; k < 3; k++) {
    lfrc[3 + k] = lfrc[3 + k] + (magnus_force[k] + kutta_force[k] - drag_lin * lin[k]);
  }
}

// semi-axes of the ellipsoid that stands for a geom (mju_geomSemiAxes)
PX_FN void pxk_psSemiAxes(PX_MDC PX_OUT(PX_REAL, size, 3), int g) {
  int gtype = M(geom_type, g);
  PXR g0 = M(geom_size, 3 * g);
  PXR g1 = M(geom_size, 3 * g + 1);
  PXR g2 = M(geom_size, 3 * g + 2);
  if (gtype == PX_GEOM_SPHERE) {
    size[0] = g0;
    size[1] = g0;
    size[2] = g0;
  } else if (gtype == PX_GEOM_CAPSULE) {
    size[0] = g0;
    size[1] = g0;
    size[2] = g1 + g0;
  } else if (gtype == PX_GEOM_CYLINDER) {
    size[0] = g0;
    size[1] = g0;
    size[2] = g1;
  } else {
    size[0] = g0;
    size[1] = g1;
    size[2] = g2;
  }
}

// fluid forces on the geoms of body i with the ellipsoid model (mj_ellipsoidFluidModel)
PX_FN void pxk_psEllipsoidFluid(PX_MDC int bodyid) {
  PXR size[3];
  PXR coef[12];
  PXR pos[3];
  PXR rot[9];
  PXR lvel[6];
  PXR lfrc[6];
  for (int j = 0; j < M(body_geomnum, bodyid); j++) {
    int g = M(body_geomadr, bodyid) + j;

    pxk_psSemiAxes(PX_MDARGC size, g);

    PXK_GET(12, coef, M, geom_fluid, 12 * g);
    if (coef[0] == PX_R(0.0)) continue;

    // local velocity relative to the wind
    PXK_GET(3, pos, D, geom_xpos, 3 * g);
    PXK_GET(9, rot, D, geom_xmat, 9 * g);
    pxk_psWindVelocity(PX_MDARGC lvel, pos, rot, bodyid);
    for (int k = 0; k < 6; k++) lfrc[k] = PX_ZERO;
    pxk_psEllipsoidForces(lfrc, lvel, size, coef, MOPT(density), MOPT(viscosity));
    for (int k = 0; k < 6; k++) lfrc[k] = lfrc[k] * coef[0];

    // to the global frame, applied at the geom's center
    pxk_psApplyLocalFT(PX_MDARGC lfrc, rot, pos, bodyid);
  }
}

// whether gravity compensation applies at all (mj_gravcomp's early return)
PX_FN int pxk_psGravcompOn(PX_MD) {
  if (MS(ngravcomp) == 0 || (MOPT(disableflags) & PX_DSBL_GRAVITY) != 0) return 0;
  PXR gr[3];
  gr[0] = MOPT(gravity)[0];
  gr[1] = MOPT(gravity)[1];
  gr[2] = MOPT(gravity)[2];
  PXR gn = pxk_fmNorm3(gr);
  return gn == PX_R(0.0) ? 0 : 1;
}

// joint springs of joint j (lane-strided caller)
PX_FN void pxk_psJointSpring(PX_MDC int j) {
  PXR dif[3];
  PXR quat[4];
  PXR qs[4];
  PXR stiffness = M(jnt_stiffness, j);
  PXR sp0 = M(jnt_stiffnesspoly, 2 * j);
  PXR sp1 = M(jnt_stiffnesspoly, 2 * j + 1);
  if (stiffness == PX_R(0.0) && sp0 == PX_R(0.0) && sp1 == PX_R(0.0)) return;
  int padr = M(jnt_qposadr, j);
  int dadr = M(jnt_dofadr, j);
  int jtype = M(jnt_type, j);
  if (jtype == PX_JNT_FREE) {
    // translation
    for (int k = 0; k < 3; k++) dif[k] = D(qpos, padr + k) - M(qpos_spring, padr + k);
    PXR r = pxk_fmNorm3(dif);
    PXR kk = pxk_fmPolyForce(stiffness, sp0, sp1, r, 0);
    PXR nk = -kk;
    for (int k = 0; k < 3; k++) {
      PXR s = D(qfrc_spring, dadr + k) + dif[k] * nk;
      D(qfrc_spring, dadr + k) = s;
    }
    padr += 3;
    dadr += 3;
  }
  if (jtype == PX_JNT_FREE || jtype == PX_JNT_BALL) {
    // rotation: the quaternion difference as a rotation vector
    PXK_GET(4, quat, D, qpos, padr);
    pxk_normalize4(quat);
    PXK_GET(4, qs, M, qpos_spring, padr);
    pxk_fmSubQuat(dif, quat, qs);
    PXR r = pxk_fmNorm3(dif);
    PXR kk = pxk_fmPolyForce(stiffness, sp0, sp1, r, 0);
    PXR nk = -kk;
    for (int k = 0; k < 3; k++) {
      PXR s = D(qfrc_spring, dadr + k) + dif[k] * nk;
      D(qfrc_spring, dadr + k) = s;
    }
  } else {
    PXR x = D(qpos, padr) - M(qpos_spring, padr);
    PXR kk = pxk_fmPolyForce(stiffness, sp0, sp1, x, 0);
    PXR nx = -x;
    PXR f = nx * kk;
    D(qfrc_spring, dadr) = f;
  }
}

// damper of dof i (lane-strided caller)
PX_FN void pxk_psDofDamper(PX_MDC int i) {
  PXR poly[2];
  poly[0] = M(dof_dampingpoly, 2 * i);
  poly[1] = M(dof_dampingpoly, 2 * i + 1);
  PXR act = pxk_psActuatorDamping(PX_MDARGC 0, M(dof_jntid, i), poly);
  PXR damping = M(dof_damping, i) + act;
  if (damping != PX_R(0.0) || poly[0] != PX_R(0.0) || poly[1] != PX_R(0.0)) {
    PXR v = D(qvel, i);
    PXR kk = pxk_fmPolyForce(damping, poly[0], poly[1], v, 1);
    PXR negv = -v;
    PXR f = negv * kk;
    D(qfrc_damper, i) = f;
  }
}

// spring and damper of tendon i, added through its Jacobian (sequential caller)
PX_FN void pxk_psTendon(PX_MDC int i, int enbl_spring, int enbl_damper) {
  PXR stiffness = PX_ZERO;
  PXR sp0 = PX_ZERO;
  PXR sp1 = PX_ZERO;
  if (enbl_spring != 0) {
    stiffness = M(tendon_stiffness, i);
    sp0 = M(tendon_stiffnesspoly, 2 * i);
    sp1 = M(tendon_stiffnesspoly, 2 * i + 1);
  }
  PXR damping = PX_ZERO;
  PXR dpoly[2];
  dpoly[0] = PX_ZERO;
  dpoly[1] = PX_ZERO;
  if (enbl_damper != 0) {
    dpoly[0] = M(tendon_dampingpoly, 2 * i);
    dpoly[1] = M(tendon_dampingpoly, 2 * i + 1);
    PXR act = pxk_psActuatorDamping(PX_MDARGC 1, i, dpoly);
    damping = M(tendon_damping, i) + act;
  }
  if (stiffness == PX_R(0.0) && (enbl_spring == 0 || (sp0 == PX_R(0.0) && sp1 == PX_R(0.0))) &&
      damping == PX_R(0.0) && dpoly[0] == PX_R(0.0) && dpoly[1] == PX_R(0.0)) {
    return;
  }

  // spring force outside the deadband [lower, upper]
  PXR len = D(ten_length, i);
  PXR lower = M(tendon_lengthspring, 2 * i);
  PXR upper = M(tendon_lengthspring, 2 * i + 1);
  PXR x = PX_ZERO;
  if (len > upper) {
    x = len - upper;
  } else if (len < lower) {
    x = len - lower;
  }
  PXR frc_spring = PX_ZERO;
  if (enbl_spring != 0) {
    PXR kk = pxk_fmPolyForce(stiffness, sp0, sp1, x, 0);
    PXR nx = -x;
    frc_spring = nx * kk;
  }

  // damper force
  PXR v = D(ten_velocity, i);
  PXR frc_damper = PX_ZERO;
  if (enbl_damper != 0) {
    PXR kk = pxk_fmPolyForce(damping, dpoly[0], dpoly[1], v, 1);
    PXR negv = -v;
    frc_damper = negv * kk;
  }

  // to dof forces
  if (frc_spring != PX_R(0.0) || frc_damper != PX_R(0.0)) {
    int end = M(ten_J_rowadr, i) + M(ten_J_rownnz, i);
    for (int j = M(ten_J_rowadr, i); j < end; j++) {
      int k = M(ten_J_colind, j);
      PXR jv = D(ten_J, j);
      PXR s = D(qfrc_spring, k) + jv * frc_spring;
      D(qfrc_spring, k) = s;
      PXR t = D(qfrc_damper, k) + jv * frc_damper;
      D(qfrc_damper, k) = t;
    }
  }
}

// qfrc_passive from its parts in mj_passive's order: springs + dampers, then fluid, adhesion and
// gravity compensation where present (gravity compensation of joints with actgravcomp goes to
// qfrc_actuator instead); adhesion comes from the contacts, which only the CPU's contact stage
// has (pxk_cnAdhesion): pxk_passive itself passes has_adhesion = 0
PX_FN void pxk_psTotals(PX_MDC int has_fluid, int has_adhesion, int has_gravcomp) {
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    PXR s = D(qfrc_spring, i) + D(qfrc_damper, i);
    if (has_fluid != 0) s = s + D(qfrc_fluid, i);
    if (has_adhesion != 0) s = s + D(qfrc_adhesion, i);
    if (has_gravcomp != 0 && M(jnt_actgravcomp, M(dof_jntid, i)) == 0) s = s + D(qfrc_gravcomp, i);
    D(qfrc_passive, i) = s;
  }
}

// whether mj_passive's gravity compensation (1) and fluid forces (2) apply: a bit mask
PX_FN int pxk_psParts(PX_MD) {
  int parts = 0;
  if (pxk_psGravcompOn(PX_MDARG) != 0) {
    for (int b = 1; b < MS(nbody); b++) {
      if (M(body_gravcomp, b) != PX_R(0.0)) parts = 1;
    }
  }
  if (MOPT(viscosity) != PX_R(0.0) || MOPT(density) != PX_R(0.0)) parts = parts + 2;
  return parts;
}

// all passive forces of one world (mj_passive)
PX_FN void pxk_passive(PX_MD) {
  PXR force[3];
  PXR torque[3];
  PXR point[3];
  int nv = MS(nv);
  for (int i = PX_LANE; i < nv; i += PX_NLANE) {
    D(qfrc_spring, i) = PX_R(0.0);
    D(qfrc_damper, i) = PX_R(0.0);
    D(qfrc_gravcomp, i) = PX_R(0.0);
    D(qfrc_fluid, i) = PX_R(0.0);
    D(qfrc_adhesion, i) = PX_R(0.0);
    D(qfrc_passive, i) = PX_R(0.0);
  }
  int enbl_spring = (MOPT(disableflags) & PX_DSBL_SPRING) == 0 ? 1 : 0;
  int enbl_damper = (MOPT(disableflags) & PX_DSBL_DAMPER) == 0 ? 1 : 0;
  if (enbl_spring == 0 && enbl_damper == 0) return;
  PX_SYNC();

  // joint springs and dof dampers: disjoint dofs
  if (enbl_spring != 0) {
    for (int j = PX_LANE; j < MS(njnt); j += PX_NLANE) pxk_psJointSpring(PX_MDARGC j);
  }
  if (enbl_damper != 0) {
    for (int i = PX_LANE; i < nv; i += PX_NLANE) pxk_psDofDamper(PX_MDARGC i);
  }
  PX_SYNC();

  // which optional parts apply (the same on every lane)
  int parts = pxk_psParts(PX_MDARG);
  int has_gravcomp = parts % 2;
  int has_fluid = parts / 2;

  if (PX_LANE == 0) {
    // tendon springs and dampers, in tendon order
    for (int i = 0; i < MS(ntendon); i++) pxk_psTendon(PX_MDARGC i, enbl_spring, enbl_damper);

    // gravity compensation: -m g gravcomp at the body's center of mass
    if (has_gravcomp != 0) {
      for (int b = 1; b < MS(nbody); b++) {
        PXR gc = M(body_gravcomp, b);
        if (gc == PX_R(0.0)) continue;
        PXR mg = M(body_mass, b) * gc;
        PXR scl = -mg;
        for (int k = 0; k < 3; k++) {
          force[k] = MOPT(gravity)[k] * scl;
          torque[k] = PX_ZERO;
        }
        PXK_GET(3, point, D, xipos, 3 * b);
        pxk_psApplyFT(PX_MDARGC force, torque, 0, point, b, PXK_PS_GRAVCOMP);
      }
    }

    // fluid forces: the ellipsoid model where any geom of the body asks for it
    if (has_fluid != 0) {
      for (int b = 0; b < MS(nbody); b++) {
        if (M(body_mass, b) < PXK_MINVAL) continue;
        int ellipsoid = 0;
        for (int j = 0; j < M(body_geomnum, b); j++) {
          if (M(geom_fluid, 12 * (M(body_geomadr, b) + j)) > PX_R(0.0)) ellipsoid = 1;
        }
        if (ellipsoid != 0) {
          pxk_psEllipsoidFluid(PX_MDARGC b);
        } else {
          pxk_psInertiaBoxFluid(PX_MDARGC b);
        }
      }
    }
  }
  PX_SYNC();

  pxk_psTotals(PX_MDARGC has_fluid, 0, has_gravcomp);
}

#endif  // PX_KERN_PASSIVE_H_
