/**
 * The top of the waterfall: the request as each observer measured it, in durations only. The client
 * lane is k6's request (connection setup before http_req_duration, then sending/waiting/receiving);
 * below it the network envelope and the server root add up to the client's duration; below that the
 * root's phases add up to the root. The envelope's split between the request and the response path
 * is unknown (two clocks), so it is one labelled block, and the drawing says so.
 */
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { h } from '../shared/dom';
import { fmtMs, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';

interface Segment {
  label: string;
  ms: number;
  color: string | null;
  /** Drawn as a hatched, dashed block: a gap no span accounts for. */
  gap?: boolean;
  opacity?: number;
  title?: string;
}

function lane(segments: readonly Segment[], offsetMs: number, scaleMs: number, name: string): HTMLElement {
  const el = h('div', { class: 'lane', role: 'img', attrs: { 'aria-label': `${name}: ${segments.map((s) => `${s.label} ${fmtMs(s.ms)}`).join(', ')}` } });
  if (offsetMs > 0) {
    const pad = h('div');
    pad.style.width = `${(offsetMs / scaleMs) * 100}%`;
    el.appendChild(pad);
  }
  for (const s of segments) {
    if (!(s.ms > 0)) continue;
    const text = `${s.label} ${fmtMs(s.ms)}`;
    // Text only where it has room (about 6 % of the lane); the title and the lane's note carry every figure.
    const room = s.ms / scaleMs > 0.06;
    const seg = h('div', { class: `seg${s.gap ? ' gap pw-hatch' : ''}`, title: s.title ?? text }, room ? (s.gap ? h('span', null, text) : text) : null);
    seg.style.width = `${(s.ms / scaleMs) * 100}%`;
    if (s.color !== null && !s.gap) seg.style.background = s.color;
    if (s.opacity !== undefined) seg.style.opacity = String(s.opacity);
    el.appendChild(seg);
  }
  return el;
}

const pos = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The three lanes and their notes. */
export function requestStrip(model: TraceModel, colors: Palette): HTMLElement {
  const b = model.breakdown;
  const c = model.client;
  const setup = c ? pos(c.blocked_ms) + pos(c.connecting_ms) + pos(c.tls_handshaking_ms) : 0;
  const clientTotal = b.client_total_ms ?? c?.total_ms ?? null;
  const root = b.server_root_ms;
  const scale = Math.max(setup + Math.max(clientTotal ?? 0, root ?? 0), 1e-9);
  const strip = h('div', { class: 'wf-strip', attrs: { 'data-testid': 'request-strip' } });
  const clientColor = colors.owner('client');

  // Lane 1: the client.
  if (c !== null && clientTotal !== null) {
    const known = c.sending_ms !== null || c.waiting_ms !== null || c.receiving_ms !== null;
    const segments: Segment[] = [
      { label: 'blocked', ms: pos(c.blocked_ms), color: colors.muted, opacity: 0.7 },
      { label: 'connecting', ms: pos(c.connecting_ms), color: colors.muted, opacity: 0.85 },
      { label: 'TLS', ms: pos(c.tls_handshaking_ms), color: colors.muted },
      ...(known
        ? [
            { label: 'sending', ms: pos(c.sending_ms), color: clientColor, opacity: 0.6 },
            { label: 'waiting', ms: pos(c.waiting_ms), color: clientColor, opacity: 0.8 },
            { label: 'receiving', ms: pos(c.receiving_ms), color: clientColor },
          ]
        : [{ label: 'k6 duration', ms: clientTotal, color: clientColor }]),
    ];
    strip.append(h('div', { class: 'lane-label', title: 'the load generator, its own clock' }, 'client · k6'), lane(segments, 0, scale, 'client'));
    const parts = known ? ` = sending ${fmtMs(c.sending_ms)} + waiting ${fmtMs(c.waiting_ms)} + receiving ${fmtMs(c.receiving_ms)}` : '';
    const setupNote = c.blocked_ms !== null || c.connecting_ms !== null || c.tls_handshaking_ms !== null
      ? `; before it: blocked ${fmtMs(c.blocked_ms)}, connecting ${fmtMs(c.connecting_ms)}, TLS ${fmtMs(c.tls_handshaking_ms)}`
      : '; connection timings not in the source';
    strip.append(h('div', { class: 'lane-note' }, `http_req_duration ${fmtMs(clientTotal)}${parts}${setupNote}`));
  } else {
    strip.append(h('div', { class: 'lane-label' }, 'client · k6'), h('div', { class: 'lane-note' }, 'no client record carries this trace ID'));
  }

  // Lane 2: envelope + server root = client total.
  if (root !== null) {
    const env = clientTotal !== null ? clientTotal - root : null;
    const segments: Segment[] = [];
    if (env !== null && env > 0) {
      segments.push({
        label: 'network envelope',
        ms: env,
        color: null,
        gap: true,
        title: `network envelope ${fmtMs(env)} = client total − server root; its split between the request and the response path is unknown`,
      });
    }
    segments.push({ label: 'server root', ms: root, color: colors.foreground, opacity: 0.7 });
    strip.append(h('div', { class: 'lane-label', title: 'the server root span, the server clock' }, 'envelope + server root'), lane(segments, setup, scale, 'envelope and server root'));
    const envNote =
      env === null
        ? 'no client duration: the envelope is unknown'
        : env < 0
          ? `negative envelope ${fmtMs(env)}: the root span outlasts the client request (root ends after the response is flushed, clock units, or a bad join)`
          : `envelope ${fmtMs(env)} drawn as one block: how it splits between the request and the response path is not measured`;
    strip.append(h('div', { class: `lane-note${env !== null && env < 0 ? ' pw-neg' : ''}` }, envNote));

    // Lane 3: the root's phases and what no phase claims.
    const phaseSegs: Segment[] = model.phases.map((p) => ({ label: ownerLabel(p), ms: pos(b.phases[`${p}_ms`]), color: colors.owner(p) }));
    const un = b.unattributed_server_ms;
    if (un !== null && un > 0) phaseSegs.push({ label: 'unattributed', ms: un, color: null, gap: true, title: `unattributed server time ${fmtMs(un)}: root time no phase claims` });
    strip.append(h('div', { class: 'lane-label', title: 'Σ of each phase, in phase order (durations, not times)' }, 'server phases'), lane(phaseSegs, setup + (env !== null && env > 0 ? env : 0), scale, 'server phases'));
    strip.append(
      h('div', { class: 'lane-note' }, `Σ per phase in phase order, not in time order${un !== null && un < 0 ? `; phases overlap: unattributed ${fmtMs(un)}` : ''}; the span tree below is in time order`),
    );
  } else {
    strip.append(h('div', { class: 'lane-label' }, 'server root'), h('div', { class: 'lane-note' }, 'no unique server root: no server figures'));
  }
  return strip;
}
