import { strict as assert } from 'assert';
import { exportLines } from '../../../src/core/probe/receiver/exportLines';
import { decodeJsonExport } from '../../../src/core/probe/receiver/otlpDecode';

/** An OTLP JSON export: `resources` resources × `scopes` scopes × `spans` spans, each span with `pad` bytes of attribute. */
function body(resources: number, scopes: number, spans: number, pad: number): Buffer {
  let n = 0;
  const resourceSpans = Array.from({ length: resources }, (_r, r) => ({
    resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${r}` } }] },
    schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
    scopeSpans: Array.from({ length: scopes }, (_s, s) => ({
      scope: { name: `scope-${s}` },
      spans: Array.from({ length: spans }, () => {
        n++;
        return {
          traceId: n.toString(16).padStart(32, '0'),
          spanId: n.toString(16).padStart(16, '0'),
          name: 'op',
          kind: 2,
          startTimeUnixNano: String(1_764_428_000_000_000_000n + BigInt(n)),
          endTimeUnixNano: String(1_764_428_000_000_000_000n + BigInt(n) + 5000n),
          attributes: [{ key: 'pad', value: { stringValue: 'x'.repeat(pad) } }],
        };
      }),
    })),
  }));
  return Buffer.from(JSON.stringify({ resourceSpans }));
}

/** The spans of some lines, with their resource and scope, in order. */
function flatten(lines: string[]): Array<{ resource: unknown; scope: unknown; span: unknown }> {
  const out: Array<{ resource: unknown; scope: unknown; span: unknown }> = [];
  for (const line of lines) {
    for (const rs of (JSON.parse(line) as { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope: unknown; spans: unknown[] }> }> }).resourceSpans) {
      for (const ss of rs.scopeSpans) for (const span of ss.spans) out.push({ resource: rs.resource, scope: ss.scope, span });
    }
  }
  return out;
}

describe('exportLines: an export cut into lines DuckDB parses within its memory limit', () => {
  it('a small export is one line, byte for byte JSON.stringify of the decoded request', () => {
    const decoded = decodeJsonExport(body(2, 2, 3, 10));
    const cut = exportLines(decoded);
    assert.deepEqual(cut.lines, [JSON.stringify(decoded.request)]);
    assert.equal(cut.spans.length, 12);
    assert.deepEqual(cut.lineOfSpan, new Array(12).fill(0));
  });

  it('a large export: every line under the target (one span over it stands alone), the same spans with their resource and scope, in order', () => {
    const decoded = decodeJsonExport(body(3, 2, 40, 2000));
    const target = 30_000;
    const cut = exportLines(decoded, target);
    assert.ok(cut.lines.length > 5, `${cut.lines.length} lines`);
    for (const line of cut.lines) assert.ok(line.length <= target + 3000, `a line of ${line.length}`);
    assert.deepEqual(flatten(cut.lines), flatten([JSON.stringify(decoded.request)]));
    assert.deepEqual(cut.spans, decoded.spans);
    // Each digest points at the line holding its span.
    for (const [i, d] of cut.spans.entries()) assert.ok(cut.lines[cut.lineOfSpan[i]].includes(`"spanId":"${d.spanId}"`));
  });

  it('a span larger than the per-span limit is refused and counted; the others are kept', () => {
    const decoded = decodeJsonExport(body(1, 1, 3, 100));
    const big = ((decoded.request.resourceSpans[0] as { scopeSpans: Array<{ spans: Array<{ attributes: Array<{ value: { stringValue: string } }> }> }> }).scopeSpans[0].spans[1]);
    big.attributes[0].value.stringValue = 'y'.repeat(5000);
    const cut = exportLines(decoded, 1000, 4000);
    assert.equal(cut.oversized, 1);
    assert.deepEqual(cut.spans.map((s) => s.spanId), [decoded.spans[0].spanId, decoded.spans[2].spanId]);
    assert.ok(!cut.lines.join('\n').includes('yyyy'));
  });

  it('an export without spans stays one line', () => {
    assert.deepEqual(exportLines(decodeJsonExport(Buffer.from('{}'))).lines, ['{"resourceSpans":[]}']);
    const empty = decodeJsonExport(Buffer.from('{"resourceSpans":[{"resource":{},"scopeSpans":[]}]}'));
    assert.deepEqual(exportLines(empty).lines, [JSON.stringify(empty.request)]);
  });
});
