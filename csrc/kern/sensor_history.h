// SPDX-License-Identifier: Apache-2.0
// The sensor half of mj_advance's history update in the kernel dialect (both executors: the CPU
// from csrc/engine/step.c through px_advanceSensorHistory, the GPU in shaders/sensor.comp mode
// 4, before the integrator advances the state). Every sensor with a history buffer takes a
// sample at the current time: with an interval only when the next one is due (the interval
// clock in the buffer's free slot moves by exactly one interval); without a delay the sample is
// the reading of this forward pass (sensordata), with a delay (sensordata then holds the
// delayed reading) the sensor is computed again at the current state into the sample, after the
// lazy quantities it needs unless this pass computed them (MuJoCo's flags: `lazy`).
//
// The lazy quantities are computed first, by all lanes, for every sample about to be computed
// (MuJoCo computes each just before the first sensor that needs it; they read nothing a sensor
// writes and the sensors read nothing else they write, so the results are the same); the
// samples are then taken on lane 0 in sensor order.
//
//   reads:  m->sensor_*, d->sensordata, d->history, the time, what the sensors read
//   writes: d->history; with delayed sensors also what the lazy quantities write (subtree_*,
//           cacc, cfrc_int, cfrc_ext, energy)
#ifndef PX_KERN_SENSOR_HISTORY_H_
#define PX_KERN_SENSOR_HISTORY_H_

#include "kern/history.h"
#include "kern/sensor.h"

// 1 if sensor i takes a sample now (before the insert moves its interval clock)
PX_FN int pxk_histSensorDue(PX_MDC int i) {
  if (M(sensor_history, 2 * i) <= 0) return 0;
  PXR interval = M(sensor_interval, 2 * i);
  if (interval > PX_R(0.0)) {
    PXR due = D(history, M(sensor_historyadr, i)) + interval;
    PXR now = PXK_TIME;
    return due <= now ? 1 : 0;
  }
  return 1;
}

// the lazy quantities (PXK_HIST_*) that the samples to compute now need
PX_FN int pxk_histSensorWants(PX_MD) {
  int want = 0;
  for (int i = 0; i < MS(nsensor); i++) {
    if (!(M(sensor_delay, i) > PX_R(0.0)) || pxk_histSensorDue(PX_MDARGC i) == 0) continue;
    int t = M(sensor_type, i);
    if (t == PX_SENS_SUBTREELINVEL || t == PX_SENS_SUBTREEANGMOM) want |= PXK_HIST_SUBTREEVEL;
    if (t == PX_SENS_ACCELEROMETER || t == PX_SENS_FORCE || t == PX_SENS_TORQUE ||
        t == PX_SENS_FRAMELINACC || t == PX_SENS_FRAMEANGACC) {
      want |= PXK_HIST_RNEPOST;
    }
    if (t == PX_SENS_E_POTENTIAL) want |= PXK_HIST_ENERGYPOS;
    if (t == PX_SENS_E_KINETIC) want |= PXK_HIST_ENERGYVEL;
  }
  return want;
}

// the lazy flags the step's forward passes leave for its history update (the GPU's; the CPU
// keeps them in d->lazy): the energies with the energy flag, and what the sensor stages computed;
// after RK4's inner passes (no sensors) only mj_rnePostConstraint's flag of the first pass
// remains, since a pass without sensors clears the others
PX_FN int pxk_histForwardLazy(PX_MD) {
  int lazy = 0;
  if ((MOPT(enableflags) & PX_ENBL_ENERGY) != 0) lazy = PXK_HIST_ENERGYPOS | PXK_HIST_ENERGYVEL;
  int rk4 = MOPT(integrator) == PX_INT_RK4 ? 1 : 0;
  if (rk4 == 0 && pxk_sensorNeeds(PX_MDARGC PXK_SN_ENERGYPOS) == 1) lazy |= PXK_HIST_ENERGYPOS;
  if (rk4 == 0 && pxk_sensorNeeds(PX_MDARGC PXK_SN_SUBTREEVEL) == 1) lazy |= PXK_HIST_SUBTREEVEL;
  if (pxk_sensorNeeds(PX_MDARGC PXK_SN_RNEPOST) == 1) lazy |= PXK_HIST_RNEPOST;
  return lazy;
}

// sensor i's sensordata and the dim numbers of Data's history at v trade places
PX_FN void pxk_histSwap(PX_MDC int i, int v) {
  int sa = M(sensor_adr, i);
  for (int k = 0; k < M(sensor_dim, i); k++) {
    PXR tmp = D(sensordata, sa + k);
    D(sensordata, sa + k) = D(history, v + k);
    D(history, v + k) = tmp;
  }
}

// sensor i computed at the current state into the dim numbers of Data's history at v: the
// stage functions write sensordata, so the sample and the sensor's sensordata trade places
// around the computation (what the sample held is what the sensor finds, as in MuJoCo)
PX_FN void pxk_histSensorCompute(PX_MDC int i, int v) {
  pxk_histSwap(PX_MDARGC i, v);
  int stage = M(sensor_needstage, i);
  if (stage == PX_STAGE_POS) {
    pxk_snPos(PX_MDARGC i, PXK_TIME);
  } else if (stage == PX_STAGE_VEL) {
    pxk_snVel(PX_MDARGC i);
  } else {
    pxk_snAcc(PX_MDARGC i);
  }
  pxk_snCutoff(PX_MDARGC i);
  pxk_histSwap(PX_MDARGC i, v);
}

// the sample sensor i takes now, if it is due: its interval clock moved, a slot inserted at the
// current time; the slot's address in Data's history, or -1 when the sensor takes none
PX_FN int pxk_histSensorSlot(PX_MDC int i) {
  int n = M(sensor_history, 2 * i);
  if (n <= 0 || pxk_histSensorDue(PX_MDARGC i) == 0) return -1;
  int adr = M(sensor_historyadr, i);
  PXR interval = M(sensor_interval, 2 * i);
  if (interval > PX_R(0.0)) {
    PXR clock = D(history, adr) + interval;
    D(history, adr) = clock;
  }
  return pxk_histInsert(PX_MDARGC adr, n, M(sensor_dim, i), PXK_TIME);
}

// the sensor history update; lazy: the lazy flags of the last forward pass. Returns the flags
// after it (lazy and what it computed). Every lane calls it. Where PXK_SN_NOGEOMDIST leaves the
// geom distance sensors out, their samples are pxk_sensorsGeomDist's.
PX_FN int pxk_histAdvanceSensors(PX_MDC int lazy) {
  if (MS(nhistory) == 0) return lazy;
  int want = pxk_histSensorWants(PX_MDARG);
  int need = want & ~lazy;
  if ((need & PXK_HIST_SUBTREEVEL) != 0) pxk_subtreeVel(PX_MDARG);
  PX_SYNC();
  if ((need & PXK_HIST_RNEPOST) != 0) PXK_SN_RNEPOST_RUN();
  PX_SYNC();
  if ((need & PXK_HIST_ENERGYPOS) != 0) pxk_energyPos(PX_MDARG);
  PX_SYNC();
  if ((need & PXK_HIST_ENERGYVEL) != 0) pxk_energyVel(PX_MDARG);
  PX_SYNC();
  if (PX_LANE == 0) {
    for (int i = 0; i < MS(nsensor); i++) {
#ifdef PXK_SN_NOGEOMDIST
      if (pxk_snSerial(PX_MDARGC i) == 1) continue;
#endif
      int v = pxk_histSensorSlot(PX_MDARGC i);
      if (v < 0) continue;
      if (M(sensor_delay, i) > PX_R(0.0)) {
        pxk_histSensorCompute(PX_MDARGC i, v);
      } else {
        for (int k = 0; k < M(sensor_dim, i); k++) {
          D(history, v + k) = D(sensordata, M(sensor_adr, i) + k);
        }
      }
    }
  }
  PX_SYNC();
  return lazy | want;
}

#ifndef PXK_SN_NOGEOMDIST
// the geom distance sensors alone, in sensor order on lane 0, with one call of the distance
// query (a GPU entry point of their own, shaders/sensor_dist*.comp, dispatched after the sensor
// pass that leaves them out, PXK_SN_NOGEOMDIST): hist 0, the readings of a forward pass (those
// not read from their history buffer; nothing with sensors disabled); hist 1, their samples of
// the history update (pxk_histAdvanceSensors's, which need no lazy quantity). Every sensor is
// independent of the others, so the split changes no result.
PX_FN void pxk_sensorsGeomDist(PX_MDC int hist) {
  if (PX_LANE != 0) return;
  if (hist == 0 && (MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return;
  if (hist == 1 && MS(nhistory) == 0) return;
  for (int i = 0; i < MS(nsensor); i++) {
    if (pxk_snSerial(PX_MDARGC i) == 0) continue;
    int v = -1;
    if (hist == 1) {
      v = pxk_histSensorSlot(PX_MDARGC i);
      if (v < 0) continue;
      if (!(M(sensor_delay, i) > PX_R(0.0))) {
        for (int k = 0; k < M(sensor_dim, i); k++) {
          D(history, v + k) = D(sensordata, M(sensor_adr, i) + k);
        }
        continue;
      }
      pxk_histSwap(PX_MDARGC i, v);
    } else if (PXK_SN_FROMHISTORY(i)) {
      continue;
    }
    pxk_snGeomDist(PX_MDARGC i, M(sensor_adr, i));
    pxk_snCutoff(PX_MDARGC i);
    if (v >= 0) pxk_histSwap(PX_MDARGC i, v);
  }
}
#endif

#endif  // PX_KERN_SENSOR_HISTORY_H_
