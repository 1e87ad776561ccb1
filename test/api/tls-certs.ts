// Certificates made at test time with openssl (EC keys: fast), and an HTTPS front on 127.0.0.1 that
// counts connections and passes requests on to a sandbox. For the certificate tests: a test CA, a
// self-signed certificate, ones the CA signed for 127.0.0.1, for another name, and one that expired
// (openssl 3.0's `x509` cannot set dates in the past, so that one is signed with `openssl ca
// -startdate/-enddate`).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forwardTo } from "./misbehave.js";

export interface Pair {
  key: string;
  cert: string;
}

export interface TestCerts {
  dir: string;
  /** The test CA's certificate file (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** The self-signed certificate's file (NODE_EXTRA_CA_CERTS can trust it directly). */
  selfSignedFile: string;
  selfSigned: Pair;
  /** Signed by the test CA for 127.0.0.1 and localhost. */
  signed: Pair;
  /** Signed by the test CA, for partner.example.com only. */
  wrongName: Pair;
  /** Signed by the test CA for 127.0.0.1, valid 2020-01-01 to 2020-01-02. */
  expired: Pair;
}

const EC = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
const LEAF_EXT = "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n";

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), "partner-cli-certs-"));
  const f = (name: string) => join(dir, name);
  // Every file name is relative to `dir`, so the commands split on blanks.
  const ssl = (command: string) => execFileSync("openssl", command.split(" "), { cwd: dir, stdio: "pipe" });
  ssl(`req -x509 ${EC} -keyout ca.key -out ca.pem -days 2 -subj /CN=partner-cli-test-CA`);
  ssl(
    `req -x509 ${EC} -keyout self.key -out self.pem -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost`,
  );
  const request = (name: string, cn: string, san: string) => {
    ssl(`req -new ${EC} -keyout ${name}.key -out ${name}.csr -subj /CN=${cn}`);
    writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\n${LEAF_EXT}`);
  };
  const sign = (name: string) =>
    ssl(
      `x509 -req -in ${name}.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out ${name}.pem -extfile ${name}.ext`,
    );
  request("signed", "127.0.0.1", "IP:127.0.0.1,DNS:localhost");
  sign("signed");
  request("wrong", "partner.example.com", "DNS:partner.example.com");
  sign("wrong");
  request("expired", "127.0.0.1", "IP:127.0.0.1,DNS:localhost");
  mkdirSync(f("issued"));
  writeFileSync(f("index.txt"), "");
  writeFileSync(f("serial"), "1000\n");
  writeFileSync(
    f("ca.cnf"),
    "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = issued\nserial = serial\ndefault_md = sha256\npolicy = any\nunique_subject = no\n[any]\ncommonName = supplied\n",
  );
  ssl(
    "ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem -notext -extfile expired.ext -startdate 20200101000000Z -enddate 20200102000000Z",
  );
  const pair = (name: string): Pair => ({
    key: readFileSync(f(`${name}.key`), "utf8"),
    cert: readFileSync(f(`${name}.pem`), "utf8"),
  });
  return {
    dir,
    caFile: f("ca.pem"),
    selfSignedFile: f("self.pem"),
    selfSigned: pair("self"),
    signed: pair("signed"),
    wrongName: pair("wrong"),
    expired: pair("expired"),
  };
}

export interface TlsFront {
  url: string;
  /** TCP connections accepted (a refused handshake counts too: one per attempt). */
  connections: number;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with `pair`, passing each request on to `upstream` (a sandbox). */
export async function tlsFront(pair: Pair, upstream: string): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server: Server = createServer({ key: pair.key, cert: pair.cert }, (req, res) => {
    forwardTo(upstream, req, res);
  });
  server.on("connection", (s: Socket) => {
    state.connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
