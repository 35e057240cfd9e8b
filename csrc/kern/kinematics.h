// SPDX-License-Identifier: Apache-2.0
// Forward kinematics, com-based frames, cameras, lights and fixed tendon lengths.
//
// The position stage of MuJoCo 3.12 up to the tendons (mj_kinematics, mj_comPos, mj_camlight,
// the fixed part of mj_tendon), in the kernel dialect: the same source runs on the CPU
// (PX_NLANE = 1) and in the Vulkan shaders (lanes of one workgroup share a world).
//   reads:  m->body_*, m->jnt_*, m->geom_pos/quat/bodyid/sameframe, m->site_*, m->cam_*,
//           m->light_*, m->qpos0, m->tendon_adr/num, m->wrap_*, d->qpos, d->mocap_pos/quat
//   writes: d->xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geom_xpos/xmat, site_xpos/xmat,
//           subtree_com, cinert, cdof, cam_xpos/xmat, light_xpos/xdir, ten_length (fixed
//           tendons only; spatial tendon lengths belong to the tendon stage)
// Ordering: the body chain and the subtree-com accumulation are sequential in body order on
// lane 0 (parents precede children); independent per-element loops are lane-strided, with a
// barrier between dependent parts. Every float operation is in MuJoCo's order.
#ifndef PX_KERN_KINEMATICS_H_
#define PX_KERN_KINEMATICS_H_

#include "kern/libm.h"
#include "kern/spatial.h"

// copy n consecutive elements between a buffer accessor (M or D) and a local array
#define PXK_GET(n, v, A, f, o) \
  for (int k_ = 0; k_ < n; k_++) v[k_] = A(f, (o) + k_)
#define PXK_PUT(n, A, f, o, v) \
  for (int k_ = 0; k_ < n; k_++) A(f, (o) + k_) = v[k_]

// sameframe codes (mjtSameFrame)
#define PXK_SAMEFRAME_NONE 0
#define PXK_SAMEFRAME_BODY 1
#define PXK_SAMEFRAME_INERTIA 2
#define PXK_SAMEFRAME_BODYROT 3
#define PXK_SAMEFRAME_INERTIAROT 4

// pose of an object attached to `body` at local (pos, quat), with MuJoCo's sameframe shortcuts
PX_FN void pxk_local2Global(PX_MDC PX_OUT(PX_REAL, xpos, 3), PX_OUT(PX_REAL, xmat, 9),
                            PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, quat, 4), int body,
                            int sameframe) {
  PXR bmat[9];
  PXR bquat[4];
  PXR tmp[3];
  PXR q[4];

  // position
  if (sameframe == PXK_SAMEFRAME_BODY) {
    PXK_GET(3, xpos, D, xpos, 3 * body);
  } else if (sameframe == PXK_SAMEFRAME_INERTIA) {
    PXK_GET(3, xpos, D, xipos, 3 * body);
  } else {
    PXK_GET(9, bmat, D, xmat, 9 * body);
    pxk_mulMatVec3(tmp, bmat, pos);
    xpos[0] = tmp[0] + D(xpos, 3 * body);
    xpos[1] = tmp[1] + D(xpos, 3 * body + 1);
    xpos[2] = tmp[2] + D(xpos, 3 * body + 2);
  }

  // orientation
  if (sameframe == PXK_SAMEFRAME_BODY || sameframe == PXK_SAMEFRAME_BODYROT) {
    PXK_GET(9, xmat, D, xmat, 9 * body);
  } else if (sameframe == PXK_SAMEFRAME_INERTIA || sameframe == PXK_SAMEFRAME_INERTIAROT) {
    PXK_GET(9, xmat, D, ximat, 9 * body);
  } else {
    PXK_GET(4, bquat, D, xquat, 4 * body);
    pxk_mulQuat(q, bquat, quat);
    pxk_quat2Mat(xmat, q);
  }
}

// body frames from qpos and mocap, joint anchors and axes (sequential over bodies)
PX_FN void pxk_kinematics1(PX_MD) {
  PXR xpos[3];
  PXR xquat[4];
  PXR bpos[3];
  PXR bquat[4];
  PXR pmat[9];
  PXR pquat[4];
  PXR v3[3];
  PXR v3b[3];
  PXR xanchor[3];
  PXR xaxis[3];
  PXR qloc[4];
  PXR q4[4];
  PXR mat[9];

  // world body
  for (int k = 0; k < 9; k++) {
    D(xmat, k) = (k % 4 == 0) ? PX_R(1.0) : PX_R(0.0);
    D(ximat, k) = (k % 4 == 0) ? PX_R(1.0) : PX_R(0.0);
  }
  for (int k = 0; k < 3; k++) {
    D(xpos, k) = PX_R(0.0);
    D(xipos, k) = PX_R(0.0);
  }
  D(xquat, 0) = PX_R(1.0);
  D(xquat, 1) = PX_R(0.0);
  D(xquat, 2) = PX_R(0.0);
  D(xquat, 3) = PX_R(0.0);

  for (int i = 1; i < MS(nbody); i++) {
    int jntadr = M(body_jntadr, i);
    int jntnum = M(body_jntnum, i);

    // free joint: pose straight from qpos
    if (jntnum == 1 && M(jnt_type, jntadr) == PX_JNT_FREE) {
      int qadr = M(jnt_qposadr, jntadr);
      PXK_GET(3, xpos, D, qpos, qadr);
      PXK_GET(4, xquat, D, qpos, qadr + 3);
      pxk_normalize4(xquat);
      PXK_PUT(3, D, xanchor, 3 * jntadr, xpos);
      for (int k = 0; k < 3; k++) D(xaxis, 3 * jntadr + k) = M(jnt_axis, 3 * jntadr + k);
    } else {
      int pid = M(body_parentid, i);

      // body offset: from the model, or from mocap (normalized quaternion)
      int mocapid = M(body_mocapid, i);
      if (mocapid >= 0) {
        PXK_GET(3, bpos, D, mocap_pos, 3 * mocapid);
        PXK_GET(4, bquat, D, mocap_quat, 4 * mocapid);
        pxk_normalize4(bquat);
      } else {
        PXK_GET(3, bpos, M, body_pos, 3 * i);
        PXK_GET(4, bquat, M, body_quat, 4 * i);
      }

      // fixed translation and rotation relative to the parent
      if (pid != 0) {
        PXK_GET(9, pmat, D, xmat, 9 * pid);
        PXK_GET(4, pquat, D, xquat, 4 * pid);
        pxk_mulMatVec3(xpos, pmat, bpos);
        for (int k = 0; k < 3; k++) xpos[k] += D(xpos, 3 * pid + k);
        pxk_mulQuat(xquat, pquat, bquat);
      } else {
        pxk_copy3(xpos, bpos);
        pxk_copy4(xquat, bquat);
      }

      // accumulate the joints of this body
      for (int j = 0; j < jntnum; j++) {
        int jid = jntadr + j;
        int qadr = M(jnt_qposadr, jid);
        int jtype = M(jnt_type, jid);

        // axis and anchor in the global frame
        PXK_GET(3, v3, M, jnt_axis, 3 * jid);
        pxk_rotVecQuat(xaxis, v3, xquat);
        PXK_GET(3, v3, M, jnt_pos, 3 * jid);
        pxk_rotVecQuat(xanchor, v3, xquat);
        for (int k = 0; k < 3; k++) xanchor[k] += xpos[k];

        if (jtype == PX_JNT_SLIDE) {
          PXR dq = D(qpos, qadr) - M(qpos0, qadr);
          for (int k = 0; k < 3; k++) xpos[k] += xaxis[k] * dq;
        } else if (jtype == PX_JNT_BALL || jtype == PX_JNT_HINGE) {
          // local rotation, applied, then the off-center correction
          if (jtype == PX_JNT_BALL) {
            PXK_GET(4, qloc, D, qpos, qadr);
            pxk_normalize4(qloc);
          } else {
            PXK_GET(3, v3, M, jnt_axis, 3 * jid);
            PXR angle = D(qpos, qadr) - M(qpos0, qadr);
            pxk_axisAngle2Quat(qloc, v3, angle);
          }
          pxk_copy4(q4, xquat);
          pxk_mulQuat(xquat, q4, qloc);
          PXK_GET(3, v3, M, jnt_pos, 3 * jid);
          pxk_rotVecQuat(v3b, v3, xquat);
          pxk_sub3(xpos, xanchor, v3b);
        }
        PXK_PUT(3, D, xanchor, 3 * jid, xanchor);
        PXK_PUT(3, D, xaxis, 3 * jid, xaxis);
      }
    }

    pxk_normalize4(xquat);
    PXK_PUT(4, D, xquat, 4 * i, xquat);
    PXK_PUT(3, D, xpos, 3 * i, xpos);
    pxk_quat2Mat(mat, xquat);
    PXK_PUT(9, D, xmat, 9 * i, mat);
  }
}

// inertial frames, geoms and sites (independent per element)
PX_FN void pxk_kinematics2(PX_MD) {
  PXR pos[3];
  PXR quat[4];
  PXR xpos[3];
  PXR xmat[9];

  for (int i = 1 + PX_LANE; i < MS(nbody); i += PX_NLANE) {
    PXK_GET(3, pos, M, body_ipos, 3 * i);
    PXK_GET(4, quat, M, body_iquat, 4 * i);
    pxk_local2Global(PX_MDARGC xpos, xmat, pos, quat, i, PX_INT(M(body_sameframe, i)));
    PXK_PUT(3, D, xipos, 3 * i, xpos);
    PXK_PUT(9, D, ximat, 9 * i, xmat);
  }
  PX_SYNC();
  for (int i = PX_LANE; i < MS(ngeom); i += PX_NLANE) {
    PXK_GET(3, pos, M, geom_pos, 3 * i);
    PXK_GET(4, quat, M, geom_quat, 4 * i);
    pxk_local2Global(PX_MDARGC xpos, xmat, pos, quat, M(geom_bodyid, i),
                     PX_INT(M(geom_sameframe, i)));
    PXK_PUT(3, D, geom_xpos, 3 * i, xpos);
    PXK_PUT(9, D, geom_xmat, 9 * i, xmat);
  }
  for (int i = PX_LANE; i < MS(nsite); i += PX_NLANE) {
    PXK_GET(3, pos, M, site_pos, 3 * i);
    PXK_GET(4, quat, M, site_quat, 4 * i);
    pxk_local2Global(PX_MDARGC xpos, xmat, pos, quat, M(site_bodyid, i),
                     PX_INT(M(site_sameframe, i)));
    PXK_PUT(3, D, site_xpos, 3 * i, xpos);
    PXK_PUT(9, D, site_xmat, 9 * i, xmat);
  }
}

// subtree centers of mass (sequential backward pass), com-frame inertias and motion dofs
PX_FN void pxk_comPos(PX_MD) {
  PXR inert[3];
  PXR mat[9];
  PXR dif[3];
  PXR res[10];
  PXR axis[3];
  PXR cross[3];

  if (PX_LANE == 0) {
    // mass-weighted positions, accumulated into parents in reverse body order
    for (int i = 0; i < MS(nbody); i++) {
      for (int k = 0; k < 3; k++) D(subtree_com, 3 * i + k) = D(xipos, 3 * i + k) * M(body_mass, i);
    }
    for (int i = MS(nbody) - 1; i > 0; i--) {
      int p = M(body_parentid, i);
      for (int k = 0; k < 3; k++) D(subtree_com, 3 * p + k) += D(subtree_com, 3 * i + k);
    }
    for (int i = 0; i < MS(nbody); i++) {
      if (M(body_subtreemass, i) < PXK_MINVAL) {
        for (int k = 0; k < 3; k++) D(subtree_com, 3 * i + k) = D(xipos, 3 * i + k);
      } else {
        PXR inv = PX_R(1.0) / M(body_subtreemass, i);
        for (int k = 0; k < 3; k++) D(subtree_com, 3 * i + k) *= inv;
      }
    }
  }
  PX_SYNC();

  // inertias in the frame centered at the root's subtree com
  for (int k = PX_LANE; k < 10; k += PX_NLANE) D(cinert, k) = PX_R(0.0);
  for (int i = 1 + PX_LANE; i < MS(nbody); i += PX_NLANE) {
    int root = M(body_rootid, i);
    for (int k = 0; k < 3; k++) dif[k] = D(xipos, 3 * i + k) - D(subtree_com, 3 * root + k);
    PXK_GET(3, inert, M, body_inertia, 3 * i);
    PXK_GET(9, mat, D, ximat, 9 * i);
    pxk_inertCom(res, inert, mat, dif, M(body_mass, i));
    PXK_PUT(10, D, cinert, 10 * i, res);
  }

  // motion dofs in the same frame
  for (int j = PX_LANE; j < MS(njnt); j += PX_NLANE) {
    int b = M(jnt_bodyid, j);
    int root = M(body_rootid, b);
    int da = 6 * M(jnt_dofadr, j);
    int jtype = M(jnt_type, j);
    for (int k = 0; k < 3; k++) dif[k] = D(subtree_com, 3 * root + k) - D(xanchor, 3 * j + k);
    if (jtype == PX_JNT_FREE || jtype == PX_JNT_BALL) {
      int skip = 0;
      if (jtype == PX_JNT_FREE) {
        // translations along the global axes
        for (int k = 0; k < 18; k++) D(cdof, da + k) = PX_R(0.0);
        D(cdof, da + 3) = PX_R(1.0);
        D(cdof, da + 10) = PX_R(1.0);
        D(cdof, da + 17) = PX_R(1.0);
        skip = 18;
      }
      // rotations about the axes of the body frame
      for (int r = 0; r < 3; r++) {
        axis[0] = D(xmat, 9 * b + r);
        axis[1] = D(xmat, 9 * b + r + 3);
        axis[2] = D(xmat, 9 * b + r + 6);
        pxk_cross(cross, axis, dif);
        PXK_PUT(3, D, cdof, da + skip + 6 * r, axis);
        PXK_PUT(3, D, cdof, da + skip + 6 * r + 3, cross);
      }
    } else if (jtype == PX_JNT_SLIDE) {
      for (int k = 0; k < 3; k++) {
        D(cdof, da + k) = PX_R(0.0);
        D(cdof, da + 3 + k) = D(xaxis, 3 * j + k);
      }
    } else {
      PXK_GET(3, axis, D, xaxis, 3 * j);
      pxk_cross(cross, axis, dif);
      PXK_PUT(3, D, cdof, da, axis);
      PXK_PUT(3, D, cdof, da + 3, cross);
    }
  }
}

// camera and light poses, by mode
PX_FN void pxk_camlight(PX_MD) {
  PXR pos[3];
  PXR quat[4];
  PXR xpos[3];
  PXR xmat[9];
  PXR bquat[4];
  PXR matT[9];
  PXR a[3];
  PXR b[3];
  PXR c[3];

  for (int i = PX_LANE; i < MS(ncam); i += PX_NLANE) {
    int id = M(cam_bodyid, i);
    int id1 = M(cam_targetbodyid, i);
    int mode = M(cam_mode, i);
    PXK_GET(3, pos, M, cam_pos, 3 * i);
    PXK_GET(4, quat, M, cam_quat, 4 * i);
    pxk_local2Global(PX_MDARGC xpos, xmat, pos, quat, id, PXK_SAMEFRAME_NONE);
    if (mode == PX_CAMLIGHT_TRACK || mode == PX_CAMLIGHT_TRACKCOM) {
      // fixed global orientation, position tracking the body or its subtree com
      PXK_GET(9, xmat, M, cam_mat0, 9 * i);
      for (int k = 0; k < 3; k++) {
        xpos[k] = mode == PX_CAMLIGHT_TRACK
                      ? D(xpos, 3 * id + k) + M(cam_pos0, 3 * i + k)
                      : D(subtree_com, 3 * id + k) + M(cam_poscom0, 3 * i + k);
      }
    } else if ((mode == PX_CAMLIGHT_TARGETBODY || mode == PX_CAMLIGHT_TARGETBODYCOM) && id1 >= 0) {
      // z axis away from the target, x axis orthogonal to z and to the world's z
      for (int k = 0; k < 3; k++) {
        c[k] = xpos[k] - (mode == PX_CAMLIGHT_TARGETBODY ? D(xpos, 3 * id1 + k)
                                                         : D(subtree_com, 3 * id1 + k));
      }
      pxk_normalize3(c);
      b[0] = PX_ZERO;
      b[1] = PX_ZERO;
      b[2] = PX_R(1.0);
      pxk_cross(a, b, c);
      pxk_normalize3(a);
      pxk_cross(b, c, a);
      pxk_normalize3(b);
      for (int k = 0; k < 3; k++) {
        matT[k] = a[k];
        matT[3 + k] = b[k];
        matT[6 + k] = c[k];
      }
      for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) xmat[3 * r + k] = matT[3 * k + r];
      }
    }
    PXK_PUT(3, D, cam_xpos, 3 * i, xpos);
    PXK_PUT(9, D, cam_xmat, 9 * i, xmat);
  }

  for (int i = PX_LANE; i < MS(nlight); i += PX_NLANE) {
    int id = M(light_bodyid, i);
    int id1 = M(light_targetbodyid, i);
    int mode = M(light_mode, i);
    PXK_GET(3, pos, M, light_pos, 3 * i);
    PXK_GET(9, xmat, D, xmat, 9 * id);
    pxk_mulMatVec3(xpos, xmat, pos);
    for (int k = 0; k < 3; k++) xpos[k] += D(xpos, 3 * id + k);
    PXK_GET(3, a, M, light_dir, 3 * i);
    PXK_GET(4, bquat, D, xquat, 4 * id);
    pxk_rotVecQuat(b, a, bquat);
    if (mode == PX_CAMLIGHT_TRACK || mode == PX_CAMLIGHT_TRACKCOM) {
      PXK_GET(3, b, M, light_dir0, 3 * i);
      for (int k = 0; k < 3; k++) {
        xpos[k] = mode == PX_CAMLIGHT_TRACK
                      ? D(xpos, 3 * id + k) + M(light_pos0, 3 * i + k)
                      : D(subtree_com, 3 * id + k) + M(light_poscom0, 3 * i + k);
      }
    } else if ((mode == PX_CAMLIGHT_TARGETBODY || mode == PX_CAMLIGHT_TARGETBODYCOM) && id1 >= 0) {
      for (int k = 0; k < 3; k++) {
        b[k] =
            (mode == PX_CAMLIGHT_TARGETBODY ? D(xpos, 3 * id1 + k) : D(subtree_com, 3 * id1 + k)) -
            xpos[k];
      }
    }
    pxk_normalize3(b);
    PXK_PUT(3, D, light_xpos, 3 * i, xpos);
    PXK_PUT(3, D, light_xdir, 3 * i, b);
  }
}

// lengths of fixed tendons: linear combinations of joint positions
PX_FN void pxk_tendonFixed(PX_MD) {
  for (int i = PX_LANE; i < MS(ntendon); i += PX_NLANE) {
    int adr = M(tendon_adr, i);
    int num = M(tendon_num, i);
    if (num > 0 && M(wrap_type, adr) == PX_WRAP_JOINT) {
      PXR len = PX_ZERO;
      for (int j = adr; j < adr + num; j++) {
        len += M(wrap_prm, j) * D(qpos, M(jnt_qposadr, M(wrap_objid, j)));
      }
      D(ten_length, i) = len;
    }
  }
}

// the whole kinematics phase of one world
PX_FN void pxk_kinematics(PX_MD) {
  if (PX_LANE == 0) pxk_kinematics1(PX_MDARG);
  PX_SYNC();
  pxk_kinematics2(PX_MDARG);
  PX_SYNC();
  pxk_comPos(PX_MDARG);
  PX_SYNC();
  pxk_camlight(PX_MDARG);
  pxk_tendonFixed(PX_MDARG);
}

#endif  // PX_KERN_KINEMATICS_H_
