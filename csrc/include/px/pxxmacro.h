// SPDX-License-Identifier: Apache-2.0
// THE field tables: every Model size, every Model array and every per-world Data array, once.
//
// X(type, name, nrow, ncol): an array of nrow x ncol elements of `type`, where nrow names a
// model size (m->nrow) and ncol is a constant or a model size expression written with MSZ().
// These tables drive allocation (engine/io.c), the Python views (python/views.c), the GPU
// layout (scripts/gen_layout.py) and the field-by-field conformance tests. Names, shapes and
// element types are MuJoCo 3.12's.
// clang-format off
#ifndef PX_INCLUDE_PX_PXXMACRO_H_
#define PX_INCLUDE_PX_PXXMACRO_H_

// model sizes (all int); nwarning is phalanx's, not MuJoCo's: the PX_NWARNING rows of the per-world
// `warning` array, set by px_makeModel whatever the sizes passed in say; nenergy likewise: the
// PX_NENERGY (2) entries of the per-world `energy` array (potential, kinetic)
#define PX_MODEL_SIZES(X) \
  X(nq) X(nv) X(nu) X(na) X(nbody) X(njnt) X(ngeom) X(nsite) X(ncam) X(nlight) X(nmesh) \
  X(nmeshvert) X(nmeshface) X(nmeshgraph) X(nmeshpoly) X(nmeshpolyvert) X(nmeshpolymap) \
  X(nhfield) X(nhfielddata) X(ntex) X(nmat) X(npair) X(nexclude) X(neq) X(ntendon) X(nwrap) \
  X(nsensor) X(nnumeric) X(nnumericdata) X(ntext) X(ntextdata) X(ntuple) X(ntupledata) X(nkey) \
  X(nmocap) X(nuser_body) X(nuser_jnt) X(nuser_geom) X(nuser_site) X(nuser_cam) X(nuser_tendon) \
  X(nuser_actuator) X(nuser_sensor) X(nnames) X(npaths) X(nsensordata) X(nM) X(nD) X(nB) X(nC) \
  X(ntree) X(nJten) X(nJmom) X(nconmax) X(njmax) X(npolygonmax) X(nmeshdegmax) X(nemax) X(nout) \
  X(nnames_map) X(ngravcomp) X(nhistory) X(nwarning) X(nenergy)

// a model size inside an ncol expression
#define MSZ(size) (m->size)

// model arrays
#define PX_MODEL_FIELDS(X) \
  /* default generalized coordinates */ \
  X(pxtNum,  qpos0,                nq,          1) \
  X(pxtNum,  qpos_spring,          nq,          1) \
  /* bodies */ \
  X(int,     body_parentid,        nbody,       1) \
  X(int,     body_rootid,          nbody,       1) \
  X(int,     body_weldid,          nbody,       1) \
  X(int,     body_mocapid,         nbody,       1) \
  X(int,     body_jntnum,          nbody,       1) \
  X(int,     body_jntadr,          nbody,       1) \
  X(int,     body_dofnum,          nbody,       1) \
  X(int,     body_dofadr,          nbody,       1) \
  X(int,     body_treeid,          nbody,       1) \
  X(int,     body_geomnum,         nbody,       1) \
  X(int,     body_geomadr,         nbody,       1) \
  X(pxtByte, body_simple,          nbody,       1) \
  X(pxtByte, body_sameframe,       nbody,       1) \
  X(pxtNum,  body_pos,             nbody,       3) \
  X(pxtNum,  body_quat,            nbody,       4) \
  X(pxtNum,  body_ipos,            nbody,       3) \
  X(pxtNum,  body_iquat,           nbody,       4) \
  X(pxtNum,  body_mass,            nbody,       1) \
  X(pxtNum,  body_subtreemass,     nbody,       1) \
  X(pxtNum,  body_inertia,         nbody,       3) \
  X(pxtNum,  body_invweight0,      nbody,       2) \
  X(pxtNum,  body_gravcomp,        nbody,       1) \
  X(pxtNum,  body_margin,          nbody,       1) \
  X(int,     body_contype,         nbody,       1) \
  X(int,     body_conaffinity,     nbody,       1) \
  X(pxtNum,  body_user,            nbody,       MSZ(nuser_body)) \
  X(int,     body_plugin,          nbody,       1) \
  /* joints */ \
  X(int,     jnt_type,             njnt,        1) \
  X(int,     jnt_qposadr,          njnt,        1) \
  X(int,     jnt_dofadr,           njnt,        1) \
  X(int,     jnt_bodyid,           njnt,        1) \
  X(int,     jnt_actuatorid,       njnt,        1) \
  X(int,     jnt_group,            njnt,        1) \
  X(pxtBool, jnt_limited,          njnt,        1) \
  X(pxtBool, jnt_actfrclimited,    njnt,        1) \
  X(pxtBool, jnt_actgravcomp,      njnt,        1) \
  X(pxtNum,  jnt_solref,           njnt,        2) \
  X(pxtNum,  jnt_solimp,           njnt,        5) \
  X(pxtNum,  jnt_pos,              njnt,        3) \
  X(pxtNum,  jnt_axis,             njnt,        3) \
  X(pxtNum,  jnt_stiffness,        njnt,        1) \
  X(pxtNum,  jnt_stiffnesspoly,    njnt,        2) \
  X(pxtNum,  jnt_range,            njnt,        2) \
  X(pxtNum,  jnt_actfrcrange,      njnt,        2) \
  X(pxtNum,  jnt_margin,           njnt,        1) \
  X(pxtNum,  jnt_user,             njnt,        MSZ(nuser_jnt)) \
  /* degrees of freedom */ \
  X(int,     dof_bodyid,           nv,          1) \
  X(int,     dof_jntid,            nv,          1) \
  X(int,     dof_parentid,         nv,          1) \
  X(int,     dof_treeid,           nv,          1) \
  X(int,     dof_Madr,             nv,          1) \
  X(int,     dof_simplenum,        nv,          1) \
  X(pxtNum,  dof_solref,           nv,          2) \
  X(pxtNum,  dof_solimp,           nv,          5) \
  X(pxtNum,  dof_frictionloss,     nv,          1) \
  X(pxtNum,  dof_armature,         nv,          1) \
  X(pxtNum,  dof_damping,          nv,          1) \
  X(pxtNum,  dof_dampingpoly,      nv,          2) \
  X(pxtNum,  dof_length,           nv,          1) \
  X(pxtNum,  dof_invweight0,       nv,          1) \
  X(pxtNum,  dof_M0,               nv,          1) \
  /* kinematic trees */ \
  X(int,     tree_bodyadr,         ntree,       1) \
  X(int,     tree_bodynum,         ntree,       1) \
  X(int,     tree_dofadr,          ntree,       1) \
  X(int,     tree_dofnum,          ntree,       1) \
  X(int,     tree_sleep_policy,    ntree,       1) \
  /* geoms */ \
  X(int,     geom_type,            ngeom,       1) \
  X(int,     geom_contype,         ngeom,       1) \
  X(int,     geom_conaffinity,     ngeom,       1) \
  X(int,     geom_condim,          ngeom,       1) \
  X(int,     geom_bodyid,          ngeom,       1) \
  X(int,     geom_dataid,          ngeom,       1) \
  X(int,     geom_matid,           ngeom,       1) \
  X(int,     geom_group,           ngeom,       1) \
  X(int,     geom_priority,        ngeom,       1) \
  X(int,     geom_plugin,          ngeom,       1) \
  X(pxtByte, geom_sameframe,       ngeom,       1) \
  X(pxtNum,  geom_solmix,          ngeom,       1) \
  X(pxtNum,  geom_solref,          ngeom,       2) \
  X(pxtNum,  geom_solimp,          ngeom,       5) \
  X(pxtNum,  geom_size,            ngeom,       3) \
  X(pxtNum,  geom_aabb,            ngeom,       6) \
  X(pxtNum,  geom_rbound,          ngeom,       1) \
  X(pxtNum,  geom_pos,             ngeom,       3) \
  X(pxtNum,  geom_quat,            ngeom,       4) \
  X(pxtNum,  geom_friction,        ngeom,       3) \
  X(pxtNum,  geom_margin,          ngeom,       1) \
  X(pxtNum,  geom_gap,             ngeom,       1) \
  X(pxtNum,  geom_fluid,           ngeom,       12) \
  X(pxtNum,  geom_adhesion,        ngeom,       1) \
  X(pxtNum,  geom_surfacevel,      ngeom,       6) \
  X(pxtNum,  geom_user,            ngeom,       MSZ(nuser_geom)) \
  X(float,   geom_rgba,            ngeom,       4) \
  /* sites */ \
  X(int,     site_type,            nsite,       1) \
  X(int,     site_bodyid,          nsite,       1) \
  X(int,     site_matid,           nsite,       1) \
  X(int,     site_group,           nsite,       1) \
  X(pxtByte, site_sameframe,       nsite,       1) \
  X(pxtNum,  site_size,            nsite,       3) \
  X(pxtNum,  site_pos,             nsite,       3) \
  X(pxtNum,  site_quat,            nsite,       4) \
  X(pxtNum,  site_user,            nsite,       MSZ(nuser_site)) \
  X(float,   site_rgba,            nsite,       4) \
  /* cameras */ \
  X(int,     cam_mode,             ncam,        1) \
  X(int,     cam_bodyid,           ncam,        1) \
  X(int,     cam_targetbodyid,     ncam,        1) \
  X(pxtNum,  cam_pos,              ncam,        3) \
  X(pxtNum,  cam_quat,             ncam,        4) \
  X(pxtNum,  cam_poscom0,          ncam,        3) \
  X(pxtNum,  cam_pos0,             ncam,        3) \
  X(pxtNum,  cam_mat0,             ncam,        9) \
  X(int,     cam_projection,       ncam,        1) \
  X(pxtNum,  cam_fovy,             ncam,        1) \
  X(pxtNum,  cam_ipd,              ncam,        1) \
  X(int,     cam_resolution,       ncam,        2) \
  X(int,     cam_output,           ncam,        1) \
  X(float,   cam_sensorsize,       ncam,        2) \
  X(float,   cam_intrinsic,        ncam,        4) \
  X(pxtNum,  cam_user,             ncam,        MSZ(nuser_cam)) \
  /* lights */ \
  X(int,     light_mode,           nlight,      1) \
  X(int,     light_bodyid,         nlight,      1) \
  X(int,     light_targetbodyid,   nlight,      1) \
  X(int,     light_type,           nlight,      1) \
  X(int,     light_texid,          nlight,      1) \
  X(pxtBool, light_castshadow,     nlight,      1) \
  X(float,   light_bulbradius,     nlight,      1) \
  X(float,   light_intensity,      nlight,      1) \
  X(float,   light_range,          nlight,      1) \
  X(pxtBool, light_active,         nlight,      1) \
  X(pxtNum,  light_pos,            nlight,      3) \
  X(pxtNum,  light_dir,            nlight,      3) \
  X(pxtNum,  light_poscom0,        nlight,      3) \
  X(pxtNum,  light_pos0,           nlight,      3) \
  X(pxtNum,  light_dir0,           nlight,      3) \
  X(float,   light_attenuation,    nlight,      3) \
  X(float,   light_cutoff,         nlight,      1) \
  X(float,   light_softness,       nlight,      1) \
  X(float,   light_exponent,       nlight,      1) \
  X(float,   light_ambient,        nlight,      3) \
  X(float,   light_diffuse,        nlight,      3) \
  X(float,   light_specular,       nlight,      3) \
  /* meshes */ \
  X(int,     mesh_vertadr,         nmesh,       1) \
  X(int,     mesh_vertnum,         nmesh,       1) \
  X(int,     mesh_faceadr,         nmesh,       1) \
  X(int,     mesh_facenum,         nmesh,       1) \
  X(int,     mesh_graphadr,        nmesh,       1) \
  X(int,     mesh_extrema,         nmesh,       27) \
  X(pxtNum,  mesh_scale,           nmesh,       3) \
  X(pxtNum,  mesh_pos,             nmesh,       3) \
  X(pxtNum,  mesh_quat,            nmesh,       4) \
  X(int,     mesh_pathadr,         nmesh,       1) \
  X(float,   mesh_vert,            nmeshvert,   3) \
  X(int,     mesh_face,            nmeshface,   3) \
  X(int,     mesh_graph,           nmeshgraph,  1) \
  X(int,     mesh_polynum,         nmesh,       1) \
  X(int,     mesh_polyadr,         nmesh,       1) \
  X(pxtNum,  mesh_polynormal,      nmeshpoly,   3) \
  X(int,     mesh_polyvertadr,     nmeshpoly,   1) \
  X(int,     mesh_polyvertnum,     nmeshpoly,   1) \
  X(int,     mesh_polyvert,        nmeshpolyvert, 1) \
  X(int,     mesh_polymapadr,      nmeshvert,   1) \
  X(int,     mesh_polymapnum,      nmeshvert,   1) \
  X(int,     mesh_polymap,         nmeshpolymap, 1) \
  /* height fields */ \
  X(pxtNum,  hfield_size,          nhfield,     4) \
  X(int,     hfield_nrow,          nhfield,     1) \
  X(int,     hfield_ncol,          nhfield,     1) \
  X(int,     hfield_adr,           nhfield,     1) \
  X(float,   hfield_data,          nhfielddata, 1) \
  X(int,     hfield_pathadr,       nhfield,     1) \
  /* textures */ \
  X(int,     tex_pathadr,          ntex,        1) \
  /* materials */ \
  X(int,     mat_texid,            nmat,        10) \
  X(pxtBool, mat_texuniform,       nmat,        1) \
  X(float,   mat_texrepeat,        nmat,        2) \
  X(float,   mat_emission,         nmat,        1) \
  X(float,   mat_specular,         nmat,        1) \
  X(float,   mat_shininess,        nmat,        1) \
  X(float,   mat_reflectance,      nmat,        1) \
  X(float,   mat_metallic,         nmat,        1) \
  X(float,   mat_roughness,        nmat,        1) \
  X(float,   mat_rgba,             nmat,        4) \
  /* predefined geom pairs */ \
  X(int,     pair_dim,             npair,       1) \
  X(int,     pair_geom1,           npair,       1) \
  X(int,     pair_geom2,           npair,       1) \
  X(int,     pair_signature,       npair,       1) \
  X(pxtNum,  pair_solref,          npair,       2) \
  X(pxtNum,  pair_solreffriction,  npair,       2) \
  X(pxtNum,  pair_solimp,          npair,       5) \
  X(pxtNum,  pair_margin,          npair,       1) \
  X(pxtNum,  pair_gap,             npair,       1) \
  X(pxtNum,  pair_adhesion,        npair,       1) \
  X(pxtNum,  pair_friction,        npair,       5) \
  /* excluded body pairs */ \
  X(int,     exclude_signature,    nexclude,    1) \
  /* equality constraints */ \
  X(int,     eq_type,              neq,         1) \
  X(int,     eq_obj1id,            neq,         1) \
  X(int,     eq_obj2id,            neq,         1) \
  X(int,     eq_objtype,           neq,         1) \
  X(pxtBool, eq_active0,           neq,         1) \
  X(pxtNum,  eq_solref,            neq,         2) \
  X(pxtNum,  eq_solimp,            neq,         5) \
  X(pxtNum,  eq_data,              neq,         11) \
  /* tendons */ \
  X(int,     tendon_adr,           ntendon,     1) \
  X(int,     tendon_num,           ntendon,     1) \
  X(int,     tendon_matid,         ntendon,     1) \
  X(int,     tendon_actuatorid,    ntendon,     1) \
  X(int,     tendon_group,         ntendon,     1) \
  X(int,     tendon_treenum,       ntendon,     1) \
  X(int,     tendon_treeid,        ntendon,     2) \
  X(int,     ten_J_rownnz,         ntendon,     1) \
  X(int,     ten_J_rowadr,         ntendon,     1) \
  X(int,     ten_J_colind,         nJten,       1) \
  X(pxtBool, tendon_limited,       ntendon,     1) \
  X(pxtBool, tendon_actfrclimited, ntendon,     1) \
  X(pxtNum,  tendon_width,         ntendon,     1) \
  X(pxtNum,  tendon_solref_lim,    ntendon,     2) \
  X(pxtNum,  tendon_solimp_lim,    ntendon,     5) \
  X(pxtNum,  tendon_solref_fri,    ntendon,     2) \
  X(pxtNum,  tendon_solimp_fri,    ntendon,     5) \
  X(pxtNum,  tendon_range,         ntendon,     2) \
  X(pxtNum,  tendon_actfrcrange,   ntendon,     2) \
  X(pxtNum,  tendon_margin,        ntendon,     1) \
  X(pxtNum,  tendon_stiffness,     ntendon,     1) \
  X(pxtNum,  tendon_stiffnesspoly, ntendon,     2) \
  X(pxtNum,  tendon_damping,       ntendon,     1) \
  X(pxtNum,  tendon_dampingpoly,   ntendon,     2) \
  X(pxtNum,  tendon_armature,      ntendon,     1) \
  X(pxtNum,  tendon_frictionloss,  ntendon,     1) \
  X(pxtNum,  tendon_lengthspring,  ntendon,     2) \
  X(pxtNum,  tendon_length0,       ntendon,     1) \
  X(pxtNum,  tendon_invweight0,    ntendon,     1) \
  X(pxtNum,  tendon_user,          ntendon,     MSZ(nuser_tendon)) \
  X(float,   tendon_rgba,          ntendon,     4) \
  /* tendon path elements */ \
  X(int,     wrap_type,            nwrap,       1) \
  X(int,     wrap_objid,           nwrap,       1) \
  X(pxtNum,  wrap_prm,             nwrap,       1) \
  /* actuators */ \
  X(int,     actuator_trntype,     nu,          1) \
  X(int,     actuator_dyntype,     nu,          1) \
  X(int,     actuator_gaintype,    nu,          1) \
  X(int,     actuator_biastype,    nu,          1) \
  X(int,     actuator_ctrladr,     nu,          1) \
  X(int,     actuator_ctrlnum,     nu,          1) \
  X(int,     actuator_ctrlspec,    nu,          1) \
  X(int,     actuator_outadr,      nu,          1) \
  X(int,     actuator_outnum,      nu,          1) \
  X(int,     actuator_trnid,       nu,          2) \
  X(int,     actuator_actadr,      nu,          1) \
  X(int,     actuator_actnum,      nu,          1) \
  X(int,     actuator_group,       nu,          1) \
  X(pxtBool, actuator_ctrllimited, nu,          1) \
  X(pxtBool, actuator_forcelimited, nu,         1) \
  X(pxtBool, actuator_actlimited,  nu,          1) \
  X(pxtNum,  actuator_dynprm,      nu,          10) \
  X(pxtNum,  actuator_gainprm,     nu,          10) \
  X(pxtNum,  actuator_biasprm,     nu,          10) \
  X(pxtBool, actuator_actearly,    nu,          1) \
  X(int,     actuator_history,     nu,          2) \
  X(int,     actuator_historyadr,  nu,          1) \
  X(pxtNum,  actuator_delay,       nu,          1) \
  X(pxtNum,  actuator_ctrlrange,   nu,          2) \
  X(pxtNum,  actuator_forcerange,  nu,          2) \
  X(pxtNum,  actuator_actrange,    nu,          2) \
  X(pxtNum,  actuator_gear,        nu,          6) \
  X(pxtNum,  actuator_cranklength, nu,          1) \
  X(pxtNum,  actuator_damping,     nu,          1) \
  X(pxtNum,  actuator_dampingpoly, nu,          2) \
  X(pxtNum,  actuator_armature,    nu,          1) \
  X(pxtNum,  actuator_acc0,        nout,        1) \
  X(pxtNum,  actuator_length0,     nout,        1) \
  X(pxtNum,  actuator_lengthrange, nout,        2) \
  X(pxtNum,  actuator_user,        nu,          MSZ(nuser_actuator)) \
  X(int,     actuator_plugin,      nu,          1) \
  /* sensors */ \
  X(int,     sensor_type,          nsensor,     1) \
  X(int,     sensor_datatype,      nsensor,     1) \
  X(int,     sensor_needstage,     nsensor,     1) \
  X(int,     sensor_objtype,       nsensor,     1) \
  X(int,     sensor_objid,         nsensor,     1) \
  X(int,     sensor_reftype,       nsensor,     1) \
  X(int,     sensor_refid,         nsensor,     1) \
  X(int,     sensor_intprm,        nsensor,     3) \
  X(int,     sensor_dim,           nsensor,     1) \
  X(int,     sensor_adr,           nsensor,     1) \
  X(pxtNum,  sensor_cutoff,        nsensor,     1) \
  X(pxtNum,  sensor_noise,         nsensor,     1) \
  X(int,     sensor_history,       nsensor,     2) \
  X(int,     sensor_historyadr,    nsensor,     1) \
  X(pxtNum,  sensor_delay,         nsensor,     1) \
  X(pxtNum,  sensor_interval,      nsensor,     2) \
  X(pxtNum,  sensor_user,          nsensor,     MSZ(nuser_sensor)) \
  X(int,     sensor_plugin,        nsensor,     1) \
  /* custom numeric, text and tuple fields */ \
  X(int,     numeric_adr,          nnumeric,    1) \
  X(int,     numeric_size,         nnumeric,    1) \
  X(pxtNum,  numeric_data,         nnumericdata, 1) \
  X(int,     text_adr,             ntext,       1) \
  X(int,     text_size,            ntext,       1) \
  X(char,    text_data,            ntextdata,   1) \
  X(int,     tuple_adr,            ntuple,      1) \
  X(int,     tuple_size,           ntuple,      1) \
  X(int,     tuple_objtype,        ntupledata,  1) \
  X(int,     tuple_objid,          ntupledata,  1) \
  X(pxtNum,  tuple_objprm,         ntupledata,  1) \
  /* keyframes */ \
  X(pxtNum,  key_time,             nkey,        1) \
  X(pxtNum,  key_qpos,             nkey,        MSZ(nq)) \
  X(pxtNum,  key_qvel,             nkey,        MSZ(nv)) \
  X(pxtNum,  key_act,              nkey,        MSZ(na)) \
  X(pxtNum,  key_mpos,             nkey,        3*MSZ(nmocap)) \
  X(pxtNum,  key_mquat,            nkey,        4*MSZ(nmocap)) \
  X(pxtNum,  key_ctrl,             nkey,        MSZ(nu)) \
  /* names */ \
  X(int,     name_bodyadr,         nbody,       1) \
  X(int,     name_jntadr,          njnt,        1) \
  X(int,     name_geomadr,         ngeom,       1) \
  X(int,     name_siteadr,         nsite,       1) \
  X(int,     name_camadr,          ncam,        1) \
  X(int,     name_lightadr,        nlight,      1) \
  X(int,     name_meshadr,         nmesh,       1) \
  X(int,     name_hfieldadr,       nhfield,     1) \
  X(int,     name_texadr,          ntex,        1) \
  X(int,     name_matadr,          nmat,        1) \
  X(int,     name_pairadr,         npair,       1) \
  X(int,     name_excludeadr,      nexclude,    1) \
  X(int,     name_eqadr,           neq,         1) \
  X(int,     name_tendonadr,       ntendon,     1) \
  X(int,     name_actuatoradr,     nu,          1) \
  X(int,     name_sensoradr,       nsensor,     1) \
  X(int,     name_numericadr,      nnumeric,    1) \
  X(int,     name_textadr,         ntext,       1) \
  X(int,     name_tupleadr,        ntuple,      1) \
  X(int,     name_keyadr,          nkey,        1) \
  X(char,    names,                nnames,      1) \
  X(int,     names_map,            nnames_map,  1) \
  /* paths of asset files */ \
  X(char,    paths,                npaths,      1) \
  /* sparse structures: body-dof (B), reduced inertia (M, lower), full inertia (D, symmetric) */ \
  X(int,     B_rownnz,             nbody,       1) \
  X(int,     B_rowadr,             nbody,       1) \
  X(int,     B_colind,             nB,          1) \
  X(int,     M_rownnz,             nv,          1) \
  X(int,     M_rowadr,             nv,          1) \
  X(int,     M_colind,             nC,          1) \
  X(int,     mapM2M,               nC,          1) \
  X(int,     D_rownnz,             nv,          1) \
  X(int,     D_rowadr,             nv,          1) \
  X(int,     D_diag,               nv,          1) \
  X(int,     D_colind,             nD,          1) \
  X(int,     mapM2D,               nD,          1) \
  X(int,     mapD2M,               nC,          1) \
  /* phalanx's (last, so that the GPU layout of every other field stays as it was): the */ \
  /* per-vertex frames (normal, two tangents) of the meshes whose MuJoCo mesh_normal holds */ \
  /* 3 normals per vertex (builtin wedge and plate), as mesh_normal holds them, at the rows */ \
  /* of their vertices (zeros elsewhere); mesh_taxeladr: mesh_vertadr for those meshes, -1 */ \
  /* for the others (what the tactile sensor reads) */ \
  X(int,     mesh_taxeladr,        nmesh,       1) \
  X(float,   mesh_taxelframe,      nmeshvert,   9)

// per-world data arrays (each one contiguous (nworld, nrow*ncol) block in batch storage)
#define PX_DATA_FIELDS(X) \
  /* state */ \
  X(pxtNum,  qpos,                 nq,          1) \
  X(pxtNum,  qvel,                 nv,          1) \
  X(pxtNum,  act,                  na,          1) \
  X(pxtNum,  ctrl,                 nu,          1) \
  X(pxtNum,  mocap_pos,            nmocap,      3) \
  X(pxtNum,  mocap_quat,           nmocap,      4) \
  X(pxtNum,  qacc_warmstart,       nv,          1) \
  X(pxtNum,  qfrc_applied,         nv,          1) \
  X(pxtNum,  xfrc_applied,         nbody,       6) \
  X(pxtBool, eq_active,            neq,         1) \
  /* actuator and sensor history buffers (csrc/kern/history.h) */ \
  X(pxtNum,  history,              nhistory,    1) \
  /* warning statistics (rows pxtWarning, columns lastinfo and number as mjWarningStat) */ \
  X(int,     warning,              nwarning,    2) \
  /* energy (potential, kinetic) with the energy enable flag, as MuJoCo's mj_forward leaves it */ \
  X(pxtNum,  energy,               nenergy,     1) \
  /* integration results */ \
  X(pxtNum,  qacc,                 nv,          1) \
  X(pxtNum,  act_dot,              na,          1) \
  /* position-dependent: kinematics */ \
  X(pxtNum,  xpos,                 nbody,       3) \
  X(pxtNum,  xquat,                nbody,       4) \
  X(pxtNum,  xmat,                 nbody,       9) \
  X(pxtNum,  xipos,                nbody,       3) \
  X(pxtNum,  ximat,                nbody,       9) \
  X(pxtNum,  xanchor,              njnt,        3) \
  X(pxtNum,  xaxis,                njnt,        3) \
  X(pxtNum,  geom_xpos,            ngeom,       3) \
  X(pxtNum,  geom_xmat,            ngeom,       9) \
  X(pxtNum,  site_xpos,            nsite,       3) \
  X(pxtNum,  site_xmat,            nsite,       9) \
  X(pxtNum,  cam_xpos,             ncam,        3) \
  X(pxtNum,  cam_xmat,             ncam,        9) \
  X(pxtNum,  light_xpos,           nlight,      3) \
  X(pxtNum,  light_xdir,           nlight,      3) \
  /* position-dependent: com-based */ \
  X(pxtNum,  subtree_com,          nbody,       3) \
  X(pxtNum,  cdof,                 nv,          6) \
  X(pxtNum,  cinert,               nbody,       10) \
  /* position-dependent: tendons */ \
  X(int,     ten_wrapadr,          ntendon,     1) \
  X(int,     ten_wrapnum,          ntendon,     1) \
  X(pxtNum,  ten_J,                nJten,       1) \
  X(pxtNum,  ten_length,           ntendon,     1) \
  X(int,     wrap_obj,             nwrap,       2) \
  X(pxtNum,  wrap_xpos,            nwrap,       6) \
  /* position-dependent: transmission */ \
  X(pxtNum,  actuator_length,      nu,          1) \
  X(int,     moment_rownnz,        nu,          1) \
  X(int,     moment_rowadr,        nu,          1) \
  X(int,     moment_colind,        nJmom,       1) \
  X(pxtNum,  actuator_moment,      nJmom,       1) \
  /* position-dependent: inertia */ \
  X(pxtNum,  crb,                  nbody,       10) \
  X(pxtNum,  M,                    nC,          1) \
  X(pxtNum,  qLD,                  nC,          1) \
  X(pxtNum,  qLDiagInv,            nv,          1) \
  /* velocity-dependent */ \
  X(pxtNum,  ten_velocity,         ntendon,     1) \
  X(pxtNum,  actuator_velocity,    nu,          1) \
  X(pxtNum,  cvel,                 nbody,       6) \
  X(pxtNum,  cdof_dot,             nv,          6) \
  X(pxtNum,  qfrc_bias,            nv,          1) \
  X(pxtNum,  qfrc_spring,          nv,          1) \
  X(pxtNum,  qfrc_damper,          nv,          1) \
  X(pxtNum,  qfrc_gravcomp,        nv,          1) \
  X(pxtNum,  qfrc_fluid,           nv,          1) \
  X(pxtNum,  qfrc_adhesion,        nv,          1) \
  X(pxtNum,  qfrc_passive,         nv,          1) \
  X(pxtNum,  subtree_linvel,       nbody,       3) \
  X(pxtNum,  subtree_angmom,       nbody,       3) \
  X(pxtNum,  qH,                   nC,          1) \
  X(pxtNum,  qHDiagInv,            nv,          1) \
  X(pxtNum,  qDeriv,               nD,          1) \
  X(pxtNum,  qLU,                  nD,          1) \
  /* acceleration-dependent */ \
  X(pxtNum,  actuator_force,       nu,          1) \
  X(pxtNum,  qfrc_actuator,        nv,          1) \
  X(pxtNum,  qfrc_smooth,          nv,          1) \
  X(pxtNum,  qacc_smooth,          nv,          1) \
  X(pxtNum,  qfrc_constraint,      nv,          1) \
  X(pxtNum,  qfrc_inverse,         nv,          1) \
  X(pxtNum,  cacc,                 nbody,       6) \
  X(pxtNum,  cfrc_int,             nbody,       6) \
  X(pxtNum,  cfrc_ext,             nbody,       6) \
  /* sensor readings (mj_sensorPos/Vel/Acc) */ \
  X(pxtNum,  sensordata,           nsensordata, 1) \
  /* phalanx scratch (not in MuJoCo): per-body acceleration and force of mj_rne's passes */ \
  X(pxtNum,  rne_cacc,             nbody,       6) \
  X(pxtNum,  rne_cfrc,             nbody,       6) \
  /* phalanx scratch: mjd_rne_vel's sparse derivatives of cvel, cacc and the body forces (one */ \
  /* 6-vector per nonzero of the B pattern) and of cdof_dot (per nonzero of the D pattern) */ \
  X(pxtNum,  rnevel_dcvel,         nB,          6) \
  X(pxtNum,  rnevel_dcacc,         nB,          6) \
  X(pxtNum,  rnevel_dcfrc,         nB,          6) \
  X(pxtNum,  rnevel_dcdofdot,      nD,          6) \
  /* phalanx scratch: the RK4 stage states and slopes, column s = stage s (mj_RungeKutta's */ \
  /* X and F), and the combined increment dX = (velocity, acceleration, act_dot) */ \
  X(pxtNum,  rk4_qpos,             nq,          4) \
  X(pxtNum,  rk4_qvel,             nv,          4) \
  X(pxtNum,  rk4_act,              na,          4) \
  X(pxtNum,  rk4_qacc,             nv,          4) \
  X(pxtNum,  rk4_act_dot,          na,          4) \
  X(pxtNum,  rk4_dqvel,            nv,          1) \
  X(pxtNum,  rk4_dqacc,            nv,          1) \
  X(pxtNum,  rk4_dact,             na,          1)

#endif  // PX_INCLUDE_PX_PXXMACRO_H_
// clang-format on
