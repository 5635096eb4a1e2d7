import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { addressRange, checkEgressHost, EgressLookupError, EgressRefusedError, isAllowedAddress, resolveEgressAddresses, type AddressLookup } from './egress';

const PUBLIC_ONLY = { allowPrivateNetworks: false };
const PRIVATE_TOO = { allowPrivateNetworks: true };

/** A resolver answering from a table: no query leaves the machine. */
const table =
  (answers: Record<string, string[]>): AddressLookup =>
  async (hostname) => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };

describe('egress policy', () => {
  it('allows only global unicast by default', () => {
    for (const address of ['93.184.216.34', '140.82.112.3', '2606:4700:4700::1111', '[2a00:1450:4007:80f::200e]']) {
      assert.equal(addressRange(address), 'unicast', address);
      assert.equal(isAllowedAddress(address, PUBLIC_ONLY), true, address);
    }
    const refused: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.10.10', 'linkLocal'],
      ['fe80::1', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['fc00::1', 'uniqueLocal'],
      ['fd12:3456::1', 'uniqueLocal'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['240.0.0.1', 'reserved'],
      // IPv4-mapped IPv6 is the IPv4 address it carries.
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      // IPv6 forms that reach IPv4 through a translator are not global unicast either.
      ['64:ff9b::a00:1', 'rfc6052'],
      ['2002:a00:1::1', '6to4'],
      ['2001:0:4136:e378::1', 'teredo'],
      ['::ffff:0:a00:1', 'rfc6145'],
      // IPv4-compatible IPv6 (deprecated, ::/96): ipaddr.js calls it unicast, it is not global.
      ['::7f00:1', 'ipv4Compatible'],
      ['[::7f00:1]', 'ipv4Compatible'],
      ['::a00:1', 'ipv4Compatible'],
      ['::808:808', 'ipv4Compatible'],
      ['::2', 'ipv4Compatible'],
      // IPv6 outside 2000::/3 is not assigned as global unicast (ipaddr.js calls it unicast too).
      ['4000::1', 'unassigned'],
      ['e000::1', 'unassigned'],
      ['100::1', 'discard'],
      ['2001:db8::1', 'reserved'],
      ['3fff::1', 'reserved'],
      ['5f00::1', 'segmentRouting'],
      ['fec0::1', 'deprecatedSiteLocal'],
      ['192.0.2.1', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['169.254.169.254', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['::ffff:169.254.169.254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['localhost', 'invalid'],
      ['', 'invalid'],
    ];
    for (const [address, range] of refused) {
      assert.equal(addressRange(address), range, address);
      assert.equal(isAllowedAddress(address, PUBLIC_ONLY), false, address);
    }
  });

  it('allows private networks only when told to, and never cloud metadata, unspecified, multicast nor other special ranges', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.10', '169.254.1.1', '100.64.1.1', 'fd12::1', '::ffff:10.1.2.3']) {
      assert.equal(isAllowedAddress(address, PRIVATE_TOO), true, address);
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '0.0.0.0', '::', '224.0.0.1', '255.255.255.255', '::7f00:1', '4000::1']) {
      assert.equal(isAllowedAddress(address, PRIVATE_TOO), false, address);
    }
  });

  it('checks every address a name resolves to, and literals without a lookup', async () => {
    const lookup = table({
      'git.example.test': ['140.82.112.3', '2606:4700:4700::1111'],
      'split.example.test': ['140.82.112.3', '10.0.0.7'],
      'metadata.example.test': ['169.254.169.254'],
      'empty.example.test': [],
      'compat.example.test': ['::7f00:1'],
    });
    assert.deepEqual(await resolveEgressAddresses('git.example.test', PUBLIC_ONLY, lookup), ['140.82.112.3', '2606:4700:4700::1111']);
    // One private answer is enough to refuse the name: the client could pick it.
    await assert.rejects(resolveEgressAddresses('split.example.test', PUBLIC_ONLY, lookup), (error: unknown) => {
      assert.ok(error instanceof EgressRefusedError);
      assert.equal(error.message, 'the address is not allowed');
      assert.match(error.detail, /10\.0\.0\.7 \(private\)/);
      return true;
    });
    assert.deepEqual(await resolveEgressAddresses('split.example.test', PRIVATE_TOO, lookup), ['140.82.112.3', '10.0.0.7']);
    await assert.rejects(resolveEgressAddresses('metadata.example.test', PRIVATE_TOO, lookup), EgressRefusedError);
    await assert.rejects(resolveEgressAddresses('compat.example.test', PRIVATE_TOO, lookup), EgressRefusedError);
    await assert.rejects(resolveEgressAddresses('nowhere.example.test', PUBLIC_ONLY, lookup), EgressLookupError);
    await assert.rejects(resolveEgressAddresses('empty.example.test', PUBLIC_ONLY, lookup), EgressLookupError);

    const never: AddressLookup = async () => assert.fail('a literal is not looked up');
    await assert.rejects(resolveEgressAddresses('127.0.0.1', PUBLIC_ONLY, never), EgressRefusedError);
    await assert.rejects(resolveEgressAddresses('[::1]', PUBLIC_ONLY, never), EgressRefusedError);
    await assert.rejects(resolveEgressAddresses('[::7f00:1]', PUBLIC_ONLY, never), EgressRefusedError);
    assert.deepEqual(await resolveEgressAddresses('[::1]', PRIVATE_TOO, never), ['::1']);
    assert.deepEqual(await resolveEgressAddresses('140.82.112.3', PUBLIC_ONLY, never), ['140.82.112.3']);
  });

  it('tells a refused host without DNS where it can: IP literals and localhost names, never a name that needs resolving', () => {
    for (const host of ['127.0.0.1', '[::1]', '10.0.0.1', '169.254.169.254', 'localhost', 'LOCALHOST.', 'tunnel.localhost'])
      assert.throws(() => checkEgressHost(host, PUBLIC_ONLY), EgressRefusedError, host);
    assert.throws(() => checkEgressHost('169.254.169.254', PRIVATE_TOO), EgressRefusedError);
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.1']) checkEgressHost(host, PRIVATE_TOO);
    // Names are resolved at each connection (resolveEgressAddresses), not here: one that does not resolve (yet) passes.
    for (const host of ['140.82.112.3', 'tunnel.example.test', 'quire-dev-tunnel.invalid', 'localhost.example.test']) checkEgressHost(host, PUBLIC_ONLY);
  });
});
