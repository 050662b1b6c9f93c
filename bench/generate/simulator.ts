import { MinHeap } from './heap';
import type { GenerateOptions } from './options';
import { Prng } from '../../src/core/prng';
import { msToNs } from './timefmt';
import { exportFate, outcomeFor, rootSpan } from './rootSpan';
import { degradation, type RouteSpec, type ScenarioOptions } from './scenario';
import type { Attr, RequestTruth, ServerTruth, SpanTruth } from './truth';
import { CONTENTION, drawWork, meanGenerationMs, modelNamed, type ModelClass } from './workload';

interface Vu {
  id: number;
  hasConnection: boolean;
}

interface Slot {
  index: number;
  freeAtNs: number;
}

/** GPU slots with a FIFO queue in front: free slots by the time they free up, and who waits or holds one. */
class Pool {
  readonly freeSlots = new MinHeap<Slot>();
  /** Generation starts of requests still waiting (queue depth). */
  readonly waiting = new MinHeap<null>();
  /** Generation ends of requests holding or awaiting a slot (busy = size − waiting). */
  readonly holding = new MinHeap<null>();

  constructor(
    readonly slots: number,
    readonly maxQueue: number,
    /** The model whose degradations apply (scenario pools), or undefined for the shared pool. */
    readonly model?: string,
  ) {
    for (let i = 0; i < slots; i++) this.freeSlots.push(0, { index: i, freeAtNs: 0 });
  }

  /**
   * The next free slot for a request asking at `tNs`. A `pool` degradation retires the slots past its
   * share: they are taken out of the heap as they come up (those still busy finish their work first).
   */
  takeSlot(scenario: ScenarioOptions | undefined, tNs: number): Slot {
    const keep = degradation(scenario, 'pool', tNs, this.model);
    for (;;) {
      const slot = this.freeSlots.pop() as Slot;
      if (keep === undefined || slot.index < this.capacity(keep) || this.freeSlots.size === 0) return slot;
    }
  }

  /** Slots in service at `tNs` (all of them unless a `pool` degradation is in force). */
  slotsAt(scenario: ScenarioOptions | undefined, tNs: number): number {
    const keep = degradation(scenario, 'pool', tNs, this.model);
    return keep === undefined ? this.slots : this.capacity(keep);
  }

  private capacity(keep: number): number {
    return Math.max(1, Math.floor(this.slots * keep));
  }
}

const DIAL_TIMEOUT_MS = 5000;

/**
 * Simulates the system under test, one scheduled iteration at a time in arrival order:
 * k6's VU pool (an iteration with no free VU is dropped), connection setup on a VU's first request,
 * the network, the four gateway spans, a FIFO queue in front of N GPU slots (so queue time grows with
 * load), heavy-tailed generation, client timeouts, and the span export fate.
 * Each concern draws from its own PRNG stream so that, e.g., changing the lost-root fraction does not
 * move any latency.
 */
export class Simulator {
  readonly slots: number;
  readonly maxQueue: number;
  private readonly client: Prng;
  private readonly server: Prng;
  private readonly faults: Prng;
  private readonly ids: Prng;
  private readonly work: Prng;
  /** The shared pool, or (scenario --pool-per-model) one pool per model. */
  private readonly pools = new Map<string, Pool>();
  private readonly shared: Pool | undefined;
  private readonly scenario: ScenarioOptions | undefined;
  /** Scenario routes, their weights and models; the route draws come from their own stream. */
  private readonly routes: ReadonlyArray<{ spec: RouteSpec; models: ModelClass[] }> | undefined;
  private readonly routeRng: Prng;
  private readonly idleVus: Vu[] = [];
  private vuCount = 0;
  busyVus = 0;
  private index = 0;

  constructor(private readonly options: GenerateOptions) {
    const { seed } = options;
    this.client = new Prng(seed, 2);
    this.server = new Prng(seed, 3);
    this.faults = new Prng(seed, 4);
    this.ids = new Prng(seed, 5);
    this.work = new Prng(seed, 6);
    // Auto-size: the draw-based mean GPU time (with contention priced at 80 % busy) overstates the real
    // load a little, so dividing by 0.92 lands near 85–90 % real utilisation: the queue stays short at the
    // mean rate and fills at the peaks of a rate wave.
    this.scenario = options.scenario;
    this.routeRng = new Prng(seed, 8);
    this.routes = options.scenario?.routes?.map((spec) => ({ spec, models: spec.models.map(modelNamed) }));
    if (options.scenario?.poolPerModel) {
      // Each model's pool is sized like the shared one, for its share of --rate.
      for (const [model, share] of this.modelShares()) {
        const mean = meanGenerationMs(new Prng(seed, 7), 0.8, 4000, [model]);
        const slots = Math.max(1, Math.ceil((options.rate * share * mean) / 1000 / 0.92));
        this.pools.set(model.name, new Pool(slots, options.maxQueue > 0 ? options.maxQueue : slots, model.name));
      }
      this.slots = [...this.pools.values()].reduce((a, p) => a + p.slots, 0);
      this.maxQueue = [...this.pools.values()].reduce((a, p) => a + p.maxQueue, 0);
    } else {
      this.slots = options.slots > 0 ? options.slots : Math.max(1, Math.ceil((options.rate * meanGenerationMs(new Prng(seed, 7), 0.8)) / 1000 / 0.92));
      this.maxQueue = options.maxQueue > 0 ? options.maxQueue : this.slots;
      this.shared = new Pool(this.slots, this.maxQueue);
    }
  }

  /** Each model's share of the requests (route weight × the model's weight within the route). */
  private modelShares(): Map<ModelClass, number> {
    const shares = new Map<ModelClass, number>();
    const all = [modelNamed('llama-3.1-8b-instruct'), modelNamed('llama-3.1-70b-instruct')];
    const routes = this.routes ?? [{ spec: { id: '', path: '', weight: 1, models: [] }, models: all }];
    const total = routes.reduce((a, r) => a + r.spec.weight, 0);
    for (const r of routes) {
      const within = r.models.reduce((a, m) => a + m.weight, 0);
      for (const m of r.models) shares.set(m, (shares.get(m) ?? 0) + (r.spec.weight / total) * (m.weight / within));
    }
    return shares;
  }

  private poolFor(model: string): Pool {
    return this.shared ?? (this.pools.get(model) as Pool);
  }

  /** Gives the iteration's VU back to the pool (called when the iteration ends, in time order). */
  releaseVu(r: RequestTruth, vu: Vu | undefined): void {
    if (!vu) return;
    this.busyVus--;
    if (r.outcome === 'timed_out' || r.outcome === 'transport_failed') vu.hasConnection = false;
    this.idleVus.push(vu);
  }

  /** Simulates the iteration scheduled at `scheduledNs`; returns its truth and the VU it holds. */
  simulate(scheduledNs: number): { request: RequestTruth; vu: Vu | undefined } {
    const o = this.options;
    const c = this.client;
    const index = this.index++;
    // Fault draws: a fixed number per iteration, so each fraction moves only its own outcome.
    const uDrop = this.faults.uniform();
    const uTransport = this.faults.uniform();
    const uUnavailable = this.faults.uniform();
    const uError = this.faults.uniform();
    const uErrorAt = this.faults.uniform();
    const uStall = this.faults.uniform();
    const uExport = this.faults.uniform();
    const uStream = this.faults.uniform();
    const uDialKind = this.faults.uniform();
    const route = this.routes === undefined ? undefined : this.routes[this.routeRng.weighted(this.routes.map((r) => r.spec.weight))];
    const work = drawWork(this.work, route?.models);
    const traceId = this.ids.hex(16);
    const clientSpanId = this.ids.hex(8);

    const request: RequestTruth = {
      index,
      requestId: `${o.runId}-${String(index).padStart(7, '0')}`,
      scheduledNs,
      dropped: false,
      traceId: null,
      streaming: uStream < o.streamingFraction,
      modelClass: work.model.name,
      promptShape: work.shape.id,
      inputTokens: work.inputTokens,
      outputTokens: null,
      outcome: null,
      httpStatus: 0,
      errorCode: null,
      errorMessage: null,
      newConnection: false,
      blockedNs: 0,
      connectingNs: 0,
      tlsNs: 0,
      sendNs: scheduledNs,
      sendingNs: 0,
      waitingNs: 0,
      receivingNs: 0,
      endNs: scheduledNs,
      iterationEndNs: scheduledNs,
      iterationStartNs: scheduledNs,
      firstContentNs: null,
      clientTtftNs: null,
      bytesSent: 0,
      bytesReceived: 0,
      server: null,
    };
    if (route !== undefined) {
      request.route = route.spec.id;
      request.routePath = route.spec.path;
    }

    let vu = this.idleVus.pop();
    if (!vu && this.vuCount < o.maxVus) vu = { id: this.vuCount++, hasConnection: false };
    if (!vu || uDrop < o.droppedFraction) {
      if (vu) this.idleVus.push(vu);
      request.dropped = true;
      return { request, vu: undefined };
    }
    this.busyVus++;
    request.traceId = traceId;

    // Scheduler lag: usually sub-ms, sometimes a GC pause.
    const lagNs = c.chance(0.004) ? msToNs(c.lognormal(15, 0.6)) : msToNs(c.lognormal(0.25, 0.6), 5000);
    request.iterationStartNs = scheduledNs + lagNs;
    const jsNs = msToNs(c.lognormal(0.08, 0.4), 5000);
    // A generator that stops reusing connections (or runs out of local ports) dials every request, slower.
    const dialSlower = degradation(this.scenario, 'connections', scheduledNs);
    if (dialSlower !== undefined) vu.hasConnection = false;
    if (!vu.hasConnection) {
      request.newConnection = true;
      request.connectingNs = msToNs(c.lognormal(0.9, 0.4) * (dialSlower ?? 1));
      request.tlsNs = o.tls ? msToNs(c.lognormal(4.5, 0.3)) : 0;
      request.blockedNs = msToNs(c.lognormal(0.6, 0.5)) + request.connectingNs + request.tlsNs;
      vu.hasConnection = true;
    } else {
      request.blockedNs = msToNs(c.lognormal(0.008, 0.5), 1000);
    }
    request.sendNs = request.iterationStartNs + jsNs + request.blockedNs;
    request.bytesSent = 380 + Math.round(request.inputTokens * 4.1);

    if (uTransport < o.transportFraction) {
      this.transportFailure(request, uDialKind < 0.3);
      this.finishIteration(request, c);
      return { request, vu };
    }

    const spike = (): number => (c.chance(0.01) ? c.lognormal(25, 0.8) : 0);
    request.sendingNs = msToNs(0.02 + request.bytesSent / 2e5, 2000);
    const netInNs = request.sendingNs + msToNs(c.lognormal(0.6, 0.45) + spike());
    const netOutNs = msToNs(c.lognormal(0.6, 0.45) + spike()) + msToNs(degradation(this.scenario, 'network', scheduledNs) ?? 0, 0);
    const server = this.serve(request, work, request.sendNs + netInNs, clientSpanId, uUnavailable, uError, uErrorAt, uStall);
    request.server = server;
    const writeStart = server.writeStartNs;
    const rootEnd = server.root.endNs;
    let endNs = rootEnd + netOutNs;
    let firstByteNs = writeStart + netOutNs;
    if (request.streaming && server.firstTokenNs !== null) {
      // SSE: headers are flushed when generation starts.
      firstByteNs = (server.generationStartNs ?? writeStart) + msToNs(0.1, 5000) + netOutNs;
      request.firstContentNs = server.firstTokenNs + msToNs(c.lognormal(0.6, 0.45) + spike());
      request.firstContentNs = Math.min(endNs, Math.max(request.firstContentNs, firstByteNs) + msToNs(degradation(this.scenario, 'first-chunk', scheduledNs) ?? 0, 0));
    } else if (request.outcome === 'succeeded') {
      request.firstContentNs = firstByteNs;
    }
    const timeoutNs = Math.round(o.timeoutMs * 1e6);
    if (endNs - request.sendNs > timeoutNs) {
      endNs = request.sendNs + timeoutNs;
      request.outcome = 'timed_out';
      request.httpStatus = 0;
      request.errorCode = 1050;
      request.errorMessage = 'request timeout';
      request.outputTokens = null;
      if (firstByteNs > endNs) firstByteNs = endNs;
      if (request.firstContentNs !== null && request.firstContentNs > endNs) request.firstContentNs = null;
    }
    request.endNs = endNs;
    request.waitingNs = firstByteNs - request.sendNs - request.sendingNs;
    request.receivingNs = endNs - firstByteNs;
    if (request.streaming && request.firstContentNs !== null) request.clientTtftNs = request.firstContentNs - request.sendNs;
    const tokens = request.outputTokens ?? 0;
    request.bytesReceived = request.outcome === 'timed_out' ? 0 : request.streaming ? 420 + tokens * 140 : 520 + tokens * 4;
    server.fate = exportFate(uExport, o.lostSpanFraction, o.lostRootFraction);
    this.finishIteration(request, c);
    return { request, vu };
  }

  private transportFailure(r: RequestTruth, dialTimeout: boolean): void {
    r.outcome = 'transport_failed';
    r.httpStatus = 0;
    if (dialTimeout) {
      r.errorCode = 1211;
      r.errorMessage = `dial tcp 127.0.0.1:${this.options.tls ? 8443 : 8080}: i/o timeout`;
      r.connectingNs = msToNs(DIAL_TIMEOUT_MS);
    } else {
      r.errorCode = 1212;
      r.errorMessage = `dial tcp 127.0.0.1:${this.options.tls ? 8443 : 8080}: connect: connection refused`;
      r.connectingNs = msToNs(this.client.lognormal(0.4, 0.3));
    }
    r.tlsNs = 0;
    r.blockedNs = r.connectingNs + msToNs(this.client.lognormal(0.5, 0.4));
    r.sendNs = r.iterationStartNs + r.blockedNs;
    r.endNs = r.sendNs;
  }

  private finishIteration(r: RequestTruth, c: Prng): void {
    r.iterationEndNs = r.endNs + msToNs(c.lognormal(r.streaming ? 0.6 : 0.2, 0.5), 10000);
  }

  /** The gateway's trace for one request, entered at `rootStartNs` (server clock = run clock). */
  private serve(
    r: RequestTruth,
    work: ReturnType<typeof drawWork>,
    rootStartNs: number,
    clientSpanId: string,
    uUnavailable: number,
    uError: number,
    uErrorAt: number,
    uStall: number,
  ): ServerTruth {
    const s = this.server;
    const o = this.options;
    const ids = this.ids;
    const gap = (): number => msToNs(s.lognormal(0.05, 0.6), 2000);
    const children: SpanTruth[] = [];
    const span = (name: string, startNs: number, durNs: number, attrs: Attr[]): SpanTruth => {
      const sp: SpanTruth = { spanId: ids.hex(8), name, kind: 1, startNs, endNs: startNs + durNs, attrs, events: [], statusCode: 0 };
      children.push(sp);
      return sp;
    };
    let t = rootStartNs + gap();
    const slowGateway = degradation(this.scenario, 'gateway', rootStartNs) ?? 1;
    const auth = span('auth.check', t, msToNs(s.lognormal(1.1, 0.35) * slowGateway), [['llm.auth.scheme', 's', 'bearer']]);
    t = auth.endNs + gap();
    const prep = span('request.prepare', t, msToNs((s.lognormal(1.8, 0.4) + r.inputTokens * 0.0008) * slowGateway), [
      ['http.request.body.size', 'i', r.bytesSent - 300],
      ['llm.prompt_tokens', 'i', r.inputTokens],
      ['llm.stream', 'b', r.streaming],
    ]);
    t = prep.endNs + gap();
    const route = span('route.select', t, msToNs(s.lognormal(0.5, 0.4) * slowGateway), [
      ['llm.model', 's', work.model.name],
      ['llm.backend', 's', `gpu-pool-a/${work.model.name}`],
    ]);
    let gatewayNs = auth.endNs - auth.startNs + (prep.endNs - prep.startNs) + (route.endNs - route.startNs);
    t = route.endNs + gap();
    let gpuQueueNs = 0;
    let generationNs = 0;
    let firstTokenNs: number | null = null;
    let generationStartNs: number | null = null;
    let status = 200;

    // Queue depth and busy slots at the moment this request asks for a slot.
    const pool = this.poolFor(work.model.name);
    while ((pool.waiting.peekKey() ?? Infinity) <= t) pool.waiting.pop();
    while ((pool.holding.peekKey() ?? Infinity) <= t) pool.holding.pop();
    const depth = pool.waiting.size;
    const slots = pool.slotsAt(this.scenario, t);
    const busy = Math.min(slots, pool.holding.size - depth);

    if (uUnavailable < o.unavailableFraction) {
      status = 503;
      route.statusCode = 2;
      route.statusMessage = 'no healthy backend';
      route.attrs.push(['error.type', 's', 'NoHealthyBackend']);
    } else if (depth >= pool.maxQueue) {
      status = 429;
      const acq = span('inference.acquire_slot', t, msToNs(s.lognormal(0.03, 0.4), 2000), [
        ['llm.phase', 's', 'queue'],
        ['llm.queue_depth', 'i', depth],
        ['llm.slots_busy', 'i', busy],
        ['llm.rejected', 'b', true],
      ]);
      acq.statusCode = 2;
      acq.statusMessage = 'queue full';
      gpuQueueNs = acq.endNs - acq.startNs;
      t = acq.endNs + gap();
    } else {
      const slot = pool.takeSlot(this.scenario, t);
      const genStart = Math.max(t + msToNs(s.lognormal(0.15, 0.5), 2000), slot.freeAtNs);
      const acq = span('inference.acquire_slot', t, genStart - t, [
        ['llm.phase', 's', 'queue'],
        ['llm.queue_depth', 'i', depth],
        ['llm.slots_busy', 'i', busy],
        ['llm.gpu_slot', 'i', slot.index],
      ]);
      gpuQueueNs = acq.endNs - acq.startNs;
      const slowdown = 1 + CONTENTION * (degradation(this.scenario, 'batch', t, work.model.name) ?? 1) * (busy / slots);
      const prefillNs = msToNs(work.prefillMs);
      let genNs = prefillNs + msToNs(work.outputTokens * work.tpotMs * slowdown);
      const stalled = uStall < o.stallFraction;
      if (stalled) genNs += msToNs(o.timeoutMs + s.lognormal(4000, 0.5));
      const failed = !stalled && uError < o.errorFraction;
      const attrs: Attr[] = [
        ['llm.phase', 's', 'generation'],
        ['llm.model', 's', work.model.name],
        ['llm.stream', 'b', r.streaming],
        ['llm.gpu_slot', 'i', slot.index],
        ['gen_ai.operation.name', 's', 'chat'],
        ['gen_ai.request.model', 's', work.model.name],
        ['gen_ai.request.max_tokens', 'i', work.shape.maxTokens],
      ];
      if (failed) genNs = Math.max(1000, Math.round(genNs * (0.05 + 0.9 * uErrorAt)));
      const gen = span('inference.generate', genStart, genNs, attrs);
      generationStartNs = genStart;
      if (failed) {
        status = 500;
        attrs.push(['error.type', 's', 'ModelBackendError']);
        gen.statusCode = 2;
        gen.statusMessage = 'model backend error';
        gen.events.push({
          name: 'exception',
          timeNs: gen.endNs - msToNs(0.02, 1000),
          attrs: [
            ['exception.type', 's', 'Error'],
            ['exception.message', 's', 'model backend error: CUDA error: an illegal memory access was encountered'],
          ],
        });
        r.outputTokens = null;
      } else {
        r.outputTokens = work.outputTokens;
        attrs.push(
          ['gen_ai.usage.input_tokens', 'i', r.inputTokens],
          ['gen_ai.usage.output_tokens', 'i', work.outputTokens],
          ['llm.ms_per_token', 'd', Math.round(work.tpotMs * slowdown * 1000) / 1000],
        );
        if (r.streaming) {
          firstTokenNs = genStart + prefillNs;
          gen.events.push({ name: 'first_token', timeNs: firstTokenNs, attrs: [['llm.tokens_in_chunk', 'i', 1]] });
        }
      }
      generationNs = genNs;
      pool.freeSlots.push(gen.endNs, { index: slot.index, freeAtNs: gen.endNs });
      pool.holding.push(gen.endNs, null);
      if (genStart > t) pool.waiting.push(genStart, null);
      t = gen.endNs + gap();
    }

    // Server work no span covers, after the answer is ready (an output filter left uninstrumented).
    t += msToNs(degradation(this.scenario, 'unattributed', rootStartNs) ?? 0, 0);
    const writeNs = msToNs(status === 200 ? (r.streaming ? s.lognormal(0.3, 0.5) : s.lognormal(0.5, 0.5) + (r.outputTokens ?? 0) * 0.002) : s.lognormal(0.2, 0.4));
    const write = span('response.write', t, writeNs, [['llm.stream', 'b', r.streaming]]);
    gatewayNs += writeNs;
    const root = rootSpan(ids.hex(8), rootStartNs, write.endNs + msToNs(s.lognormal(0.04, 0.4), 2000), status, r, o.tls);
    r.httpStatus = status;
    r.outcome = outcomeFor(status);
    // k6 error codes for HTTP errors are 1000 + status.
    if (status >= 400) r.errorCode = 1000 + status;
    children.sort((a, b) => a.endNs - b.endNs);
    return { clientSpanId, root, children, fate: 'full', gatewayNs, gpuQueueNs, generationNs, firstTokenNs, generationStartNs, writeStartNs: write.startNs };
  }
}
