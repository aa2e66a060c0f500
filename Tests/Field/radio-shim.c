/*
 * The radio for BlueZ's emulator in the field test. btvirt's virtual controllers pass each
 * other's advertisements on with RSSI 127 ("not available": no radio measured one), and the
 * sentinel rightly ignores reports without an RSSI. Preloaded into btvirt, this shim writes the
 * RSSI the test chooses (the number in the file $FIELD_RSSI_FILE, in dBm, read at every report,
 * so the test can move the tag during a run) into the LE Advertising Reports, legacy and
 * extended, that btvirt sends to the kernel through /dev/vhci. Nothing else is changed: the
 * kernel's HCI layer, bluetoothd and the sentinel see the advertiser's real frames.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int chosen_rssi(int *rssi)
{
	const char *path = getenv("FIELD_RSSI_FILE");
	FILE *file;
	int ok;

	if (!path || !(file = fopen(path, "r")))
		return 0;
	ok = fscanf(file, "%d", rssi) == 1 && *rssi >= -127 && *rssi <= 20;
	fclose(file);
	return ok;
}

/* An H4 event packet: 0x04, event code, parameter length, parameters. */
static void set_rssi(unsigned char *packet, size_t length)
{
	size_t end, i;
	unsigned reports, r;
	int rssi;

	if (length < 5 || packet[0] != 0x04 || packet[1] != 0x3e)
		return;
	end = 3 + (size_t)packet[2];
	if (end > length || !chosen_rssi(&rssi))
		return;
	i = 5;
	reports = packet[4];
	for (r = 0; r < reports; r++) {
		if (packet[3] == 0x02) {	/* LE Advertising Report */
			i += 1 + 1 + 6;		/* event type, address type, address */
			if (i >= end)
				return;
			i += 1 + packet[i];	/* data length, data */
			if (i >= end)
				return;
			packet[i++] = (unsigned char)(signed char)rssi;
		} else if (packet[3] == 0x0d) {	/* LE Extended Advertising Report */
			i += 2 + 1 + 6 + 1 + 1 + 1 + 1;	/* type, address, PHYs, SID, TX power */
			if (i >= end)
				return;
			packet[i] = (unsigned char)(signed char)rssi;
			i += 1 + 2 + 1 + 6;	/* RSSI, periodic interval, direct address */
			if (i >= end)
				return;
			i += 1 + packet[i];
		} else {
			return;
		}
	}
}

ssize_t writev(int fd, const struct iovec *iov, int count)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	unsigned char packet[1024];
	size_t total = 0;
	struct iovec one;
	int i;

	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	for (i = 0; i < count; i++)
		total += iov[i].iov_len;
	if (count < 1 || total > sizeof(packet))
		return real(fd, iov, count);
	total = 0;
	for (i = 0; i < count; i++) {
		memcpy(packet + total, iov[i].iov_base, iov[i].iov_len);
		total += iov[i].iov_len;
	}
	set_rssi(packet, total);
	one.iov_base = packet;
	one.iov_len = total;
	return real(fd, &one, 1);
}

ssize_t write(int fd, const void *buffer, size_t length)
{
	static ssize_t (*real)(int, const void *, size_t);
	unsigned char packet[1024];

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (length > sizeof(packet))
		return real(fd, buffer, length);
	memcpy(packet, buffer, length);
	set_rssi(packet, length);
	return real(fd, packet, length);
}
