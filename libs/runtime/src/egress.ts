import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Outbound connections to addresses a user chose (Git sync repositories, webhook targets):
 * which addresses the server may connect to. An allow-list: only global unicast is public,
 * that is IPv4 outside every special-purpose range and IPv6 inside 2000::/3 outside them
 * (the ranges come from ipaddr.js, a maintained list of the special-purpose registries, not
 * from hand-written masks). Everything else (loopback, RFC 1918, link-local, CGNAT,
 * unique-local, multicast, unspecified, reserved, unassigned IPv6 space, and the IPv6 forms
 * that embed an IPv4 address such as IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo)
 * is refused unless private networks are allowed explicitly, and then only the private
 * ranges named below. Cloud metadata services are refused even then: they hand out the
 * machine's credentials to whoever asks.
 *
 * Callers must connect to the addresses `resolveEgressAddresses` checked (pin them), not
 * resolve the name again: a DNS answer may change between the check and the connection.
 */

export interface EgressPolicy {
  /** Allow loopback, private, link-local, CGNAT and unique-local addresses (development, tests, on-premises servers). */
  allowPrivateNetworks: boolean;
}

/** The address is not one the policy lets the server connect to (the message is safe to show). */
export class EgressRefusedError extends Error {
  constructor(
    /** What was refused and why, for the service log only (it names internal addresses). */
    readonly detail: string,
  ) {
    super('the address is not allowed');
    this.name = 'EgressRefusedError';
  }
}

/** The name did not resolve (the message is safe to show). */
export class EgressLookupError extends Error {
  constructor(readonly detail: string) {
    super('the address could not be resolved');
    this.name = 'EgressLookupError';
  }
}

// AWS/GCP/Azure/OpenStack (IPv4), AWS ECS task metadata, AWS (IPv6), Alibaba Cloud.
const METADATA_ADDRESSES = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200'].map((address) =>
  ipaddr.parse(address).toNormalizedString(),
);

/** The one range allowed by default. */
const GLOBAL_UNICAST = 'unicast';

// Ranges that only reach this machine or its private networks: allowed with allowPrivateNetworks.
const PRIVATE_RANGES = new Set(['loopback', 'private', 'linkLocal', 'carrierGradeNat', 'uniqueLocal']);

// ipaddr.js calls every IPv6 address outside its special ranges 'unicast', unassigned space
// included, and the deprecated IPv4-compatible ::/96 with it (::7f00:1 is 127.0.0.1 to a
// stack that still routes those): only 2000::/3 is assigned as global unicast.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** An IP literal parsed, with an IPv4-mapped IPv6 address (::ffff:10.0.0.1) seen as the IPv4 it is. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const literal = address.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal.replace(/%.*$/, '')) === 0) return null;
  const parsed = ipaddr.parse(literal);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** The special-purpose range of an IP address ('unicast' for a global unicast one), 'invalid' for anything else. */
export function addressRange(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return 'invalid';
  if (METADATA_ADDRESSES.includes(parsed.toNormalizedString())) return 'metadata';
  const range = parsed.range();
  if (range !== GLOBAL_UNICAST || parsed.kind() === 'ipv4') return range;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(IPV6_GLOBAL_UNICAST)) return range;
  return v6.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'unassigned';
}

/** True when the policy lets the server connect to this IP address: global unicast, or a private range when allowed. */
export function isAllowedAddress(address: string, policy: EgressPolicy): boolean {
  const range = addressRange(address);
  return range === GLOBAL_UNICAST || (policy.allowPrivateNetworks && PRIVATE_RANGES.has(range));
}

/**
 * Checks what can be told of a host without asking DNS: an IP literal must be allowed, and a
 * `localhost` name (which resolves to loopback by definition, RFC 6761) is loopback. A name is
 * left to resolveEgressAddresses at each connection. Throws EgressRefusedError.
 */
export function checkEgressHost(hostname: string, policy: EgressPolicy): void {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const address = parseAddress(hostname)?.toString() ?? (name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : undefined);
  if (address !== undefined && !isAllowedAddress(address, policy)) throw new EgressRefusedError(`${hostname} is ${address} (${addressRange(address)})`);
}

export type AddressLookup = (hostname: string) => Promise<string[]>;

const systemLookup: AddressLookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The addresses `hostname` (a name, an IPv4 literal or a bracketed IPv6 literal, as
 * URL.hostname gives it) resolves to, every one of them allowed by the policy: a name
 * with one refused address is refused as a whole (which address a client picks is not
 * ours to predict). Throws EgressRefusedError or EgressLookupError.
 */
export async function resolveEgressAddresses(hostname: string, policy: EgressPolicy, lookup: AddressLookup = systemLookup): Promise<string[]> {
  const literal = parseAddress(hostname);
  let addresses: string[];
  if (literal) addresses = [literal.toString()];
  else {
    try {
      addresses = await lookup(hostname);
    } catch (error) {
      throw new EgressLookupError(`${hostname}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
    if (addresses.length === 0) throw new EgressLookupError(`${hostname}: no address`);
  }
  const refused = addresses.filter((address) => !isAllowedAddress(address, policy));
  if (refused.length > 0)
    throw new EgressRefusedError(`${hostname} resolves to ${refused.map((address) => `${address} (${addressRange(address)})`).join(', ')}`);
  return addresses;
}
