/**
 * Colours come from VS Code's `--vscode-*` variables, read at draw time (canvas and uPlot cannot use
 * CSS variables), and every picture redraws when the theme changes: VS Code changes the body class
 * and the variables, and the host also sends `webview/themeChanged`.
 */
import type { ThemeKind } from '../../src/protocol/common';

/** The value of a CSS custom property on the body, or `fallback`. */
export function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v !== '' ? v : fallback;
}

export function themeKind(): ThemeKind {
  const c = document.body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

export function isHighContrast(): boolean {
  const k = themeKind();
  return k === 'high-contrast' || k === 'high-contrast-light';
}

/** The colours the pictures use, resolved now. */
export interface Palette {
  foreground: string;
  muted: string;
  background: string;
  grid: string;
  border: string;
  focus: string;
  error: string;
  warning: string;
  pass: string;
  selection: string;
  highlight: string;
  /** Owner (`network_envelope`, a phase, `unattributed_server`, `client`, `other`) → colour. */
  owner: (name: string | null) => string;
}

/**
 * Chart colours for the phases, in the order they are handed out. Checked pairwise (CIEDE2000 over
 * VS Code's default dark, light and high-contrast values, test/webview/reportPalette.test.ts): the
 * three named phases with the envelope (blue) and unattributed (red) stay ≥ 20 apart in every theme.
 * Orange is last: in the light theme charts-orange (#d18616) is ΔE 6 from charts-yellow (#bf8803),
 * the gateway's colour, so it is only used once six phases are taken.
 */
const PHASE_VARS: [string, string][] = [
  ['--vscode-charts-yellow', '#cca700'],
  ['--vscode-charts-green', '#89d185'],
  ['--vscode-charts-purple', '#b180d7'],
  ['--vscode-terminal-ansiCyan', '#11a8cd'],
  ['--vscode-terminal-ansiMagenta', '#bc3fbc'],
  ['--vscode-charts-orange', '#d18616'],
];

/** Owners of the window series that are not phases: the client's side of the request. */
const SERIES_OWNER_VARS: Record<string, [string, string]> = {
  transport_setup: ['--vscode-terminal-ansiCyan', '#11a8cd'],
  client_total: ['--vscode-foreground', '#cccccc'],
  client_ttft: ['--vscode-foreground', '#cccccc'],
  ttft_envelope: ['--vscode-charts-blue', '#3794ff'],
  server_ttft: ['--vscode-charts-purple', '#b180d7'],
};

/** Colours by owner: fixed for the default phases, then by phase order. */
export function palette(phases: readonly string[] = []): Palette {
  const fixed: Record<string, string> = {
    network_envelope: cssVar('--vscode-charts-blue', '#3794ff'),
    client: cssVar('--vscode-charts-blue', '#3794ff'),
    unattributed_server: cssVar('--vscode-charts-red', '#f14c4c'),
  };
  for (const [name, [v, f]] of Object.entries(SERIES_OWNER_VARS)) fixed[name] = cssVar(v, f);
  const byPhase = new Map<string, string>();
  const named: Record<string, number> = { gateway: 0, gpu_queue: 1, generation: 2 };
  let next = 3;
  for (const p of phases) {
    const slot = named[p] ?? next++;
    const [v, f] = PHASE_VARS[slot % PHASE_VARS.length];
    byPhase.set(p, cssVar(v, f));
  }
  const muted = cssVar('--vscode-descriptionForeground', '#8b8b8b');
  const cache = new Map<string, string>();
  return {
    foreground: cssVar('--vscode-foreground', '#cccccc'),
    muted,
    background: cssVar('--vscode-editor-background', '#1e1e1e'),
    grid: cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.35)'),
    border: cssVar('--vscode-contrastBorder', '') || cssVar('--vscode-panel-border', 'rgba(128,128,128,0.35)'),
    focus: cssVar('--vscode-focusBorder', '#007fd4'),
    error: cssVar('--vscode-errorForeground', '#f48771'),
    warning: cssVar('--vscode-editorWarning-foreground', '#cca700'),
    pass: cssVar('--vscode-testing-iconPassed', '#73c991'),
    selection: cssVar('--vscode-list-activeSelectionBackground', '#04395e'),
    highlight: cssVar('--vscode-editor-findMatchHighlightBackground', 'rgba(234,92,0,0.33)'),
    owner: (name) => {
      if (name === null) return muted;
      let c = cache.get(name);
      if (c === undefined) {
        const key = name.replace(/_ms$/, '');
        c = fixed[key] ?? byPhase.get(key) ?? (key === 'generation_ms_per_output_token' ? byPhase.get('generation') : undefined) ?? muted;
        cache.set(name, c);
      }
      return c;
    },
  };
}

/** Calls `redraw` after each theme change (body class or data attribute), at most once per frame. */
export function onThemeChange(redraw: () => void): () => void {
  let scheduled = false;
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      redraw();
    });
  };
  const observer = new MutationObserver(schedule);
  observer.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return schedule;
}

/** Sets the body class VS Code would set (the HTML export's theme switch and the test host page). */
export function applyThemeKind(kind: ThemeKind): void {
  const c = document.body.classList;
  c.remove('vscode-light', 'vscode-dark', 'vscode-high-contrast', 'vscode-high-contrast-light');
  c.add(kind === 'high-contrast-light' ? 'vscode-high-contrast-light' : `vscode-${kind}`);
  if (kind === 'high-contrast-light') c.add('vscode-high-contrast');
  document.body.dataset.vscodeThemeKind = `vscode-${kind}`;
}

/** A diagonal-hatch pattern (gaps and unknown splits), in `color` on transparent. */
export function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  const c = document.createElement('canvas');
  c.width = 8;
  c.height = 8;
  const g = c.getContext('2d');
  if (g === null) return color;
  g.strokeStyle = color;
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(-2, 10);
  g.lineTo(10, -2);
  g.moveTo(6, 10);
  g.lineTo(10, 6);
  g.moveTo(-2, 2);
  g.lineTo(2, -2);
  g.stroke();
  return ctx.createPattern(c, 'repeat') ?? color;
}

/** `color` at opacity `a` (hex forms; other forms are returned as they are). */
export function withAlpha(color: string, a: number): string {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(color.trim());
  if (m === null) return color;
  let hex = m[1];
  if (hex.length === 3) hex = hex.split('').map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((k) => parseInt(hex.slice(k, k + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${a})`;
}
