// A file descriptor open for reading, with the two operations read_file needs. The callback API
// wrapped once in a promise costs a fraction of FileHandle's per operation (no native handle object,
// no close through the thread pool), which shows on a small file, where these are most of the work.
import { closeSync, read } from 'node:fs'

export class ReadDescriptor {
  #fd: number

  constructor (fd: number) {
    this.#fd = fd
  }

  /** As FileHandle.read: the bytes read into `buffer` at `offset`, from `position` of the file. */
  async read (buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    return await new Promise((resolve, reject) => {
      read(this.#fd, buffer, offset, length, position, (error, bytesRead) => {
        if (error === null) resolve({ bytesRead })
        else reject(error)
      })
    })
  }

  /**
   * Closes at once, without a trip through the thread pool: closing a descriptor that was only
   * read from writes nothing back, so the kernel releases it without waiting on storage. A second
   * close does nothing (the number may already name another file opened since).
   */
  close (): void {
    if (this.#fd < 0) return
    const fd = this.#fd
    this.#fd = -1
    closeSync(fd)
  }
}
