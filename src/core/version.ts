/**
 * The Phasewise version stamped into every report. A literal rather than a package.json import so the
 * CLI bundle does not carry the manifest; a test checks it against package.json.
 */
export const PHASEWISE_VERSION = '0.1.0';
