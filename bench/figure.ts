/**
 * One measured figure of a benchmark, as every part of `npm run bench` reports it. In a module of
 * its own so that the parts (engine.ts, floor.ts, daemon.ts) import it without importing each other.
 */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** The target, e.g. ">= 30000". */
  target?: string;
  met?: boolean;
  /**
   * The same rate per second of this process's own CPU time (user + system). Other processes
   * on the machine slow the wall-clock figure down; this one shows what the code costs.
   */
  cpuValue?: number;
}
