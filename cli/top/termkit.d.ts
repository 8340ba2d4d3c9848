/**
 * The part of terminal-kit that `spool top` uses. Its build without lazy requires is imported, so
 * that esbuild can bundle it (esbuild.mjs points terminal-kit's own imports of termkit.js at it).
 */
declare module 'terminal-kit/lib/termkit-no-lazy-require.js' {
  type Attr = Record<string, string | boolean | number>;
  interface Terminal {
    readonly width: number;
    readonly height: number;
    fullscreen(on: boolean): void;
    grabInput(options: boolean | { mouse?: string }): void;
    hideCursor(hide?: boolean): void;
    styleReset(): void;
    clear(): void;
    on(event: 'key', listener: (name: string, matches: string[], data: { isCharacter: boolean }) => void): void;
    on(event: 'resize', listener: (width: number, height: number) => void): void;
  }
  class ScreenBuffer {
    constructor(options: { dst: Terminal; width: number; height: number; x?: number; y?: number });
    readonly width: number;
    readonly height: number;
    fill(options?: { char?: string; attr?: Attr }): void;
    put(options: { x: number; y: number; attr?: Attr; wrap?: boolean; dx?: number; dy?: number }, text: string): void;
    draw(options?: { delta?: boolean }): void;
    resize(rect: { x: number; y: number; width: number; height: number }): void;
  }
  const termkit: { terminal: Terminal; ScreenBuffer: typeof ScreenBuffer };
  export = termkit;
}
