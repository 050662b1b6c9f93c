/**
 * Where the time of one bench process goes, stage by stage: wall time and the CPU time of the whole
 * process (every DuckDB thread included) between one stage mark and the next. The analysis and the
 * readers name their stages (src/core/store/stage.ts); the bench adds its own (process start, open,
 * close). CPU beside wall: on a shared machine the load inflates wall time far more than CPU.
 */

export interface StageTiming {
  stage: string;
  wallSeconds: number;
  cpuSeconds: number;
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export class StageClock {
  private readonly totals = new Map<string, StageTiming>();
  private current: string | undefined;
  private wallAt = performance.now();
  private cpuAt = cpuSeconds();

  /**
   * Starts the clock with what the process spent before it (node start and module loading):
   * performance.now() counts from the process's time origin, process.cpuUsage() from its start.
   */
  static sinceProcessStart(): StageClock {
    const clock = new StageClock();
    clock.charge('start (node, modules)', clock.wallAt / 1000, clock.cpuAt);
    return clock;
  }

  /** Closes the running stage and opens `name` (a name seen before adds to its totals). */
  enter(name: string): void {
    const wall = performance.now();
    const cpu = cpuSeconds();
    if (this.current !== undefined) this.charge(this.current, (wall - this.wallAt) / 1000, cpu - this.cpuAt);
    this.current = name;
    this.wallAt = wall;
    this.cpuAt = cpu;
  }

  /** Closes the running stage; the stages in the order they were first entered. */
  finish(): StageTiming[] {
    this.enter('');
    this.current = undefined;
    return [...this.totals.values()];
  }

  private charge(stage: string, wallSeconds: number, cpu: number): void {
    const t = this.totals.get(stage) ?? { stage, wallSeconds: 0, cpuSeconds: 0 };
    t.wallSeconds += wallSeconds;
    t.cpuSeconds += cpu;
    this.totals.set(stage, t);
  }
}
