import type { BundleRecord, VerificationRecord } from "../../store/run-attestations.ts";

/**
 * A run's last verification and its bundle's manifest hash (verification.json, bundle.json;
 * docs/guides/publishing.md) for `hexa inspect`: the same sentences in the printed report and in the page, so a
 * figure can cite the bundle it comes from. Pure; the CLI reads the files.
 */

export interface AttestationView {
  /** The run's id. */
  run: string;
  verification?: VerificationRecord;
  bundle?: BundleRecord;
}

/** A recorded or replayed value in one short line. */
const valueText = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
};

const day = (iso: string): string => iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");

/** One sentence on the last verification: identical with its counts, where it diverged, or what it could not check. */
export const verificationText = (v: VerificationRecord): string => {
  const when = `${day(v.verifiedAt)} by ${v.codeVersion}`;
  const c = v.counts;
  const counted = `${c.episodes} episodes, ${c.bankEvents} bank events, ${c.modelExchanges} model exchanges, ${c.trainings} trainings checked`;
  const d = v.divergence;
  switch (v.status) {
    case "identical":
      return `verified identical on ${when}: ${counted}`;
    case "diverged":
      return `verification on ${when} diverged${d ? ` at ${d.what}, ${d.field}: recorded ${valueText(d.recorded)}, replayed ${valueText(d.replayed)}` : ""} (${counted} before it)`;
    case "cannot":
      return `could not be verified on ${when}${d ? `: ${d.what}${d.field ? ` (${d.field})` : ""}` : ""}`;
  }
};

/** One sentence on the bundle: where it was written and the manifest hash to cite. */
export const bundleText = (b: BundleRecord): string => `bundle ${b.file} (packed ${day(b.createdAt)}): manifest sha256 ${b.manifestHash}`;

/** The lines `hexa inspect` prints for a run; none when it was never verified nor bundled. */
export const attestationLines = (a: AttestationView): string[] => [
  ...(a.verification ? [`${a.run}: ${verificationText(a.verification)}`] : []),
  ...(a.bundle ? [`${a.run}: ${bundleText(a.bundle)}`] : []),
];
