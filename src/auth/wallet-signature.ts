import { isAddress, recoverMessageAddress, type Hex } from "viem";

/** How far a signed timestamp may be from the server's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { ok: true; wallet: string } | { ok: false; reason: string };

/** The message a wallet signs (EIP-191 personal_sign) to prove it holds the key. */
export const authMessage = (prefix: string, timestamp: number | string) => `${prefix}:${timestamp}`;

/**
 * Verifies that `signature` is `address`'s EIP-191 signature of `{prefix}:{timestamp}`, made
 * within the tolerance. Addresses compare case-insensitively; the wallet is returned lower-cased.
 */
export async function verifyWalletSignature(
  input: { address: string; timestamp: number; signature: string },
  prefix: string,
  nowMs: number,
): Promise<SignatureCheck> {
  if (!isAddress(input.address, { strict: false })) return { ok: false, reason: "address is not an EVM address" };
  if (!Number.isInteger(input.timestamp)) return { ok: false, reason: "timestamp must be whole Unix seconds" };
  if (Math.abs(nowMs / 1000 - input.timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: `timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s away from server time` };
  }
  // With or without 0x: viem signs "0x…", eth-account (the Python SDK) gives bare hex.
  if (!/^(0x)?[0-9a-fA-F]{130}$/.test(input.signature)) return { ok: false, reason: "signature must be 65 bytes of hex" };
  const signature = (input.signature.startsWith("0x") ? input.signature : `0x${input.signature}`) as Hex;
  try {
    const signer = await recoverMessageAddress({ message: authMessage(prefix, input.timestamp), signature });
    if (signer.toLowerCase() !== input.address.toLowerCase()) return { ok: false, reason: "signature does not match address" };
    return { ok: true, wallet: signer.toLowerCase() };
  } catch {
    return { ok: false, reason: "signature could not be recovered" };
  }
}

/** Parses `x-wallet-auth: {address}:{unix_ts}:{signature}`. */
export function parseWalletHeader(value: string): { address: string; timestamp: number; signature: string } | null {
  const parts = value.trim().split(":");
  if (parts.length !== 3 || !/^\d+$/.test(parts[1]!)) return null;
  return { address: parts[0]!, timestamp: Number(parts[1]), signature: parts[2]! };
}
