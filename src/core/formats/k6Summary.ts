import type { ReaderContext, ReaderResult } from './types';

// Placeholder until the reader lands; loadFiles dispatches here by sniffed format.
export async function readK6Summary(ctx: ReaderContext): Promise<ReaderResult> {
  throw new Error(`reader for ${ctx.sniff.format} is not built yet`);
}
