/*
 * The tag for the field test: advertises an iBeacon frame from a BlueZ emulator controller the
 * way a real tag does, non-connectable, about ten times a second. BlueZ's emulator hands an
 * advertisement to the scanning controllers when advertising is enabled, not on a radio's
 * schedule, so the tag enables it anew every 100 ms; its parameters and frame are put back every
 * second, since a restart of bluetoothd or of the emulator resets the controller.
 *
 *   tag hciN FILE   (FILE: "MAJOR MINOR MEASURED_POWER UUID-HEX [COUNT]", re-read every second)
 *
 * With COUNT, the tag stands for COUNT tags, minors MINOR to MINOR+COUNT-1, one per advertisement in
 * turn: many bikes in range at once, for a sentinel writing many sightings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define AF_BLUETOOTH_ 31
#define BTPROTO_HCI_ 1

struct sockaddr_hci_ {
	sa_family_t family;
	unsigned short dev;
	unsigned short channel;
};

static int command(int fd, uint16_t opcode, const uint8_t *parameters, uint8_t length)
{
	uint8_t packet[260] = { 0x01, opcode & 0xff, opcode >> 8, length };

	memcpy(packet + 4, parameters, length);
	return write(fd, packet, 4 + length) == 4 + length ? 0 : -1;
}

static int frame(const char *path, unsigned turn, uint8_t data[32])
{
	unsigned major, minor, count = 1;
	int power;
	char uuid[40];
	FILE *file = fopen(path, "r");
	int i, ok;

	if (!file)
		return -1;
	ok = fscanf(file, "%u %u %d %32s %u", &major, &minor, &power, uuid, &count) >= 4 && strlen(uuid) == 32;
	fclose(file);
	if (!ok || count == 0)
		return -1;
	minor += turn % count;
	/* length, then Flags (LE General Discoverable, no BR/EDR) and Apple's iBeacon record */
	const uint8_t head[] = { 30, 0x02, 0x01, 0x06, 0x1a, 0xff, 0x4c, 0x00, 0x02, 0x15 };
	memcpy(data, head, sizeof(head));
	for (i = 0; i < 16; i++) {
		unsigned byte;
		if (sscanf(uuid + 2 * i, "%2x", &byte) != 1)
			return -1;
		data[10 + i] = byte;
	}
	data[26] = major >> 8;
	data[27] = major & 0xff;
	data[28] = minor >> 8;
	data[29] = minor & 0xff;
	data[30] = (uint8_t)(int8_t)power;
	data[31] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	/* 100 ms interval, ADV_NONCONN_IND, public address, all three channels */
	const uint8_t parameters[] = { 0xa0, 0x00, 0xa0, 0x00, 0x03, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00 };
	const uint8_t on = 1, off = 0;
	struct sockaddr_hci_ address = { AF_BLUETOOTH_, 0, 0 };
	struct timespec tenth = { 0, 100 * 1000 * 1000 };
	uint8_t data[32];
	int fd = -1, tick;

	if (argc != 3 || strncmp(argv[1], "hci", 3) != 0) {
		fprintf(stderr, "usage: tag hciN FILE\n");
		return 2;
	}
	address.dev = atoi(argv[1] + 3);
	for (tick = 0;; tick++) {
		if (fd < 0) {
			fd = socket(AF_BLUETOOTH_, SOCK_RAW, BTPROTO_HCI_);
			if (fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
				close(fd);
				fd = -1;
			}
		}
		if (fd >= 0 && frame(argv[2], tick, data) == 0) {
			if (tick % 10 == 0) {
				command(fd, 0x200a, &off, 1);
				command(fd, 0x2006, parameters, sizeof(parameters));
			}
			command(fd, 0x2008, data, sizeof(data));
		}
		if (fd >= 0 && (command(fd, 0x200a, &off, 1) < 0 || command(fd, 0x200a, &on, 1) < 0)) {
			/* the controller went away (the emulator restarted): open it again */
			close(fd);
			fd = -1;
		}
		nanosleep(&tenth, NULL);
	}
}
