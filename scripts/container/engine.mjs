// The container engine of a machine without a Docker daemon: Debian's podman and buildah, and a
// base image made here. `node:24-bookworm-slim` cannot be pulled (the only registry reachable is
// npm's), so the base is made with debootstrap from Debian's packages and this project's Node 24:
// the same Debian release and Node major the Dockerfile's default names.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cp, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export const BASE_IMAGE = 'localhost/node:24-bookworm-slim'
const PACKAGES = { podman: 'podman', buildah: 'buildah', debootstrap: 'debootstrap' }
// Where a CA bundle is put in the base image when this machine's npm trusts an extra one (a proxy's).
const CA_IN_IMAGE = '/etc/ssl/certs/build-extra-ca.crt'
const APT_NO_CACHE = [
  'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };',
  'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };',
  'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";',
  ''
].join('\n')

function has (command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function run (step, command, args, options = {}) {
  step(`$ ${command} ${args.join(' ')}`)
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options })
  const [code, signal] = await once(child, 'close')
  if (code !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed (exit ${code ?? signal})`)
}

/** Installs podman, buildah and debootstrap with apt-get when missing (needs root). */
export async function ensureEngine (step) {
  const missing = Object.keys(PACKAGES).filter((command) => !has(command))
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) throw new Error(`${missing.join(', ')} missing and not root: install them with apt-get (${missing.map((c) => PACKAGES[c]).join(' ')})`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run(step, 'apt-get', ['update', '-qq'], { env })
  await run(step, 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing.map((c) => PACKAGES[c])], { env })
}

export function imageExists (image) {
  try {
    execFileSync('podman', ['image', 'exists', image], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** The npm package folder of the `npm` on PATH (its bin entry is a link into it). */
async function npmFolder () {
  const cli = await realpath(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())
  return dirname(dirname(cli))
}

/** Debian bookworm (minimal), this Node 24 and npm, a `node` user with uid 1000: as the official image. */
export async function buildBaseImage (step) {
  if (Number(process.versions.node.split('.')[0]) !== 24) throw new Error(`the base image takes the Node running this script, ${process.version}, not 24`)
  const temp = await mkdtemp(join(tmpdir(), 'gw-base-'))
  const root = join(temp, 'rootfs')
  try {
    await run(step, 'debootstrap', ['--variant=minbase', 'bookworm', root, 'http://deb.debian.org/debian'])
    await cp(process.execPath, join(root, 'usr/bin/node'))
    await mkdir(join(root, 'usr/lib/node_modules'), { recursive: true })
    await cp(await npmFolder(), join(root, 'usr/lib/node_modules/npm'), { recursive: true })
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/bin/npm'))
    await run(step, 'chroot', [root, 'groupadd', '--gid', '1000', 'node'])
    await run(step, 'chroot', [root, 'useradd', '--uid', '1000', '--gid', 'node', '--create-home', '--shell', '/bin/bash', 'node'])
    // As Debian's official images: apt keeps no package cache, and debootstrap's downloads go.
    await writeFile(join(root, 'etc/apt/apt.conf.d/docker-clean'), APT_NO_CACHE)
    await run(step, 'chroot', [root, 'apt-get', 'clean'])
    const changes = []
    // `npm ci` in the build reaches the registry through whatever CA this machine's npm trusts.
    if (process.env.NODE_EXTRA_CA_CERTS) {
      await cp(process.env.NODE_EXTRA_CA_CERTS, join(root, CA_IN_IMAGE))
      changes.push('--change', `ENV NODE_EXTRA_CA_CERTS=${CA_IN_IMAGE}`)
    }
    await run(step, 'sh', ['-c', `tar -C '${root}' -c . | podman import ${changes.map((c) => `'${c}'`).join(' ')} - ${BASE_IMAGE}`])
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}
