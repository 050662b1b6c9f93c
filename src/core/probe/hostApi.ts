/** What the extension host uses of the probe on its own thread (the receiver); probes run on a worker. */
export { OtlpReceiver } from './receiver/receiver';
export { JsonlFileSink } from './receiver/sinks';
export { isLoopbackHost, parseListenAddress } from './receiver/events';
