// CPU time of processes and of the whole machine, from /proc (Linux): what a phase of a
// benchmark cost the serve nodes and PostgreSQL, whatever else the machine was doing.
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux this runs on). */
const HZ = 100;

/** CPU seconds (user + system) a process has used, or 0 when it is gone. */
export function processCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after the last ")".
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / HZ;
  } catch {
    return 0;
  }
}

/** The pids whose parent is `ppid`. */
export function childrenOf(ppid) {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const m = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${name}/status`, "utf8"));
      if (m && Number(m[1]) === ppid) out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** The parent of a process. */
export function parentOf(pid) {
  const m = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m[1]);
}

/** Busy and total CPU seconds of the whole machine since boot, and its cores. */
export function machineCpu() {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = line[3] + line[4];
  const total = line.slice(0, 8).reduce((a, b) => a + b, 0);
  const cores = readFileSync("/proc/stat", "utf8").split("\n").filter((l) => /^cpu\d/.test(l)).length;
  return { busy: (total - idle) / HZ, total: total / HZ, cores };
}

/**
 * A meter over some processes: `pids()` lists them at each reading (PostgreSQL's backends
 * come and go). `start()` then `stop()` gives the CPU seconds they used in between, and
 * the machine's busy seconds, with the wall time.
 */
export function cpuMeter(groups) {
  const read = () => {
    const out = {};
    for (const [name, pids] of Object.entries(groups)) {
      const seen = new Map();
      for (const pid of pids()) seen.set(pid, processCpu(pid));
      out[name] = seen;
    }
    return out;
  };
  let before;
  let machine;
  let t0;
  return {
    start() {
      before = read();
      machine = machineCpu();
      t0 = performance.now();
    },
    /** CPU seconds per group (processes that began during the phase count from 0), machine busy seconds, wall seconds, cores. */
    stop() {
      const after = read();
      const m = machineCpu();
      const wall = (performance.now() - t0) / 1000;
      const used = {};
      for (const [name, seen] of Object.entries(after)) {
        let s = 0;
        for (const [pid, cpu] of seen) s += cpu - (before[name].get(pid) ?? 0);
        used[name] = s;
      }
      return { used, machineBusy: m.busy - machine.busy, wall, cores: m.cores };
    },
  };
}
