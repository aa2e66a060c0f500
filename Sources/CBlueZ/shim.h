// libbluetooth (BlueZ) for Swift: the raw HCI socket API of <bluetooth/hci_lib.h>.
// hci_lib.h uses memset in inline helpers without including <string.h> itself.
#include <string.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
