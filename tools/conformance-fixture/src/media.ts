// The fixture's binary payloads: a 1×1 PNG and a short silent WAV, built here so no binary file
// is checked in. The suite checks only that `data`/`blob` and `mimeType` are present.

/** A 1×1 transparent PNG, base64. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** 8 samples of 8-bit mono PCM silence at 8 kHz in a RIFF/WAVE container, base64. */
export const WAV_BASE64: string = (() => {
  const samples = 8
  const wav = Buffer.alloc(44 + samples)
  wav.write('RIFF', 0, 'ascii')
  wav.writeUInt32LE(36 + samples, 4)
  wav.write('WAVE', 8, 'ascii')
  wav.write('fmt ', 12, 'ascii')
  wav.writeUInt32LE(16, 16) // fmt chunk size
  wav.writeUInt16LE(1, 20) // PCM
  wav.writeUInt16LE(1, 22) // mono
  wav.writeUInt32LE(8000, 24) // sample rate
  wav.writeUInt32LE(8000, 28) // byte rate
  wav.writeUInt16LE(1, 32) // block align
  wav.writeUInt16LE(8, 34) // bits per sample
  wav.write('data', 36, 'ascii')
  wav.writeUInt32LE(samples, 40)
  wav.fill(0x80, 44) // 8-bit PCM silence is the midpoint
  return wav.toString('base64')
})()
