/**
 * Writing a text file piece by piece with backpressure (a streamed query result: views/streamResult.ts),
 * for replaceOutput (outputFile.ts), which gives the path to write and the mode to keep.
 */
import { createWriteStream } from 'fs';

/** Writes what `produce` hands its sink into `file` (created with `mode`); resolves with produce's result once the file is complete. */
export async function writeTextFile<T>(file: string, mode: number, produce: (write: (text: string) => Promise<void>) => Promise<T>): Promise<T> {
  const stream = createWriteStream(file, { mode });
  let failure: Error | undefined;
  stream.on('error', (err) => (failure ??= err));
  const write = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      // The callback fires once the piece is handed on (or failed): one piece in flight at a time.
      stream.write(text, 'utf8', (err) => (err ? reject(err) : resolve()));
    });
  try {
    const result = await produce(write);
    await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : failure ? reject(failure) : resolve())));
    return result;
  } catch (err) {
    stream.destroy();
    throw err;
  }
}
