#!/usr/bin/python3
"""Drives python-dbusmock's bluez5 template the way BlueZ behaves while scanning.

The D-Bus scanner tests run this with DBUS_SYSTEM_BUS_ADDRESS pointing at their private bus.
Works around python-dbusmock 0.28.7 (Debian bookworm): its bluez5 AddDevice creates
ManufacturerData with the wrong type (aa{qv}) and its UpdateProperties fails on dictionary
values, so devices are made with the generic AddObject + InterfacesAdded, ManufacturerData is
changed with Properties.Set and RSSI with UpdateProperties.

Usage (one action per run; exit status 0 on success, the D-Bus error on stderr otherwise):
  wait-bluez                             wait (up to 10 s) until org.bluez is on the bus
  add-adapter NAME                       add /org/bluez/NAME (powered)
  remove-adapter NAME                    remove it (InterfacesRemoved)
  set-powered NAME true|false            change Adapter1.Powered (PropertiesChanged)
  add-device NAME ADDRESS RSSI [COMPANY:HEX ...]
                                         announce a device (InterfacesAdded) with manufacturer data
  add-quirky-device NAME ADDRESS         the template's own AddDevice (ManufacturerData aa{qv})
  set-rssi NAME ADDRESS RSSI             RSSI change (PropertiesChanged)
  set-manufacturer-data NAME ADDRESS COMPANY:HEX ...
                                         ManufacturerData change (PropertiesChanged)
  replay NAME FILE                       every line "ADDRESS RSSI COMPANY:HEX" as BlueZ reports it with
                                         DuplicateData: InterfacesAdded for a new address, then
                                         PropertiesChanged (RSSI, ManufacturerData), in file order
  fail-start-discovery NAME ERROR-NAME   make StartDiscovery answer with a D-Bus error
  refuse-start-discovery NAME ERROR-NAME COUNT
                                         StartDiscovery answers the error COUNT times (as BlueZ does while
                                         the kernel still runs a dead bluetoothd's discovery), then starts
  set-discovering NAME true|false        change Adapter1.Discovering (PropertiesChanged), as the kernel
                                         ending a discovery or another client stopping it does
  discovering NAME                       print Adapter1.Discovering (True or False)
  objects                                print the object paths BlueZ manages, one per line
"""

import os
import sys
import time

import dbus

BLUEZ = 'org.bluez'
MOCK = 'org.freedesktop.DBus.Mock'
BLUEZ_MOCK = 'org.bluez.Mock'
ADAPTER = 'org.bluez.Adapter1'
DEVICE = 'org.bluez.Device1'
OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager'


def bus():
    return dbus.bus.BusConnection(os.environ['DBUS_SYSTEM_BUS_ADDRESS'])


def obj(path):
    return bus().get_object(BLUEZ, path)


def device_path(adapter, address):
    return f'/org/bluez/{adapter}/dev_' + address.replace(':', '_').upper()


def manufacturer_data(pairs):
    data = {}
    for pair in pairs:
        company, payload = pair.split(':', 1)
        data[dbus.UInt16(int(company, 0))] = dbus.Array(bytes.fromhex(payload), signature='y', variant_level=1)
    return dbus.Dictionary(data, signature='qv', variant_level=1)


def wait_bluez():
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if bus().name_has_owner(BLUEZ):
                return
        except dbus.exceptions.DBusException:
            pass
        time.sleep(0.05)
    sys.exit('org.bluez did not appear within 10 s')


def add_device(adapter, address, rssi, pairs):
    path = device_path(adapter, address)
    properties = dbus.Dictionary({
        'Address': dbus.String(address, variant_level=1),
        'AddressType': dbus.String('random', variant_level=1),
        'Adapter': dbus.ObjectPath(f'/org/bluez/{adapter}', variant_level=1),
        'RSSI': dbus.Int16(int(rssi), variant_level=1),
        'ManufacturerData': manufacturer_data(pairs),
    }, signature='sv')
    root = obj('/')
    root.AddObject(path, DEVICE, properties, [], dbus_interface=MOCK)
    root.EmitSignal(OBJECT_MANAGER, 'InterfacesAdded', 'oa{sa{sv}}',
                    [dbus.ObjectPath(path), dbus.Dictionary({DEVICE: properties}, signature='sa{sv}')],
                    dbus_interface=MOCK)
    print(path)


def replay(adapter, file):
    known = set()
    connection = bus()  # one connection for the whole burst, as bluetoothd has
    with open(file) as lines:
        for line in lines:
            address, rssi, pair = line.split()
            if address not in known:
                known.add(address)
                add_device(adapter, address, rssi, [pair])
                continue
            changed = dbus.Dictionary({
                'RSSI': dbus.Int16(int(rssi), variant_level=1),
                'ManufacturerData': manufacturer_data([pair]),
            }, signature='sv')
            connection.get_object(BLUEZ, device_path(adapter, address)).EmitSignal(
                dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', [DEVICE, changed, dbus.Array([], signature='s')],
                dbus_interface=MOCK)


def main(argv):
    command, args = argv[1], argv[2:]
    if command == 'wait-bluez':
        wait_bluez()
    elif command == 'add-adapter':
        obj('/').AddAdapter(args[0], 'bikebeacon test', dbus_interface=BLUEZ_MOCK)
    elif command == 'remove-adapter':
        obj('/').RemoveAdapter(args[0], dbus_interface=BLUEZ_MOCK)
    elif command == 'set-powered':
        obj(f'/org/bluez/{args[0]}').Set(ADAPTER, 'Powered', dbus.Boolean(args[1] == 'true', variant_level=1),
                                         dbus_interface=dbus.PROPERTIES_IFACE)
    elif command == 'add-device':
        add_device(args[0], args[1], args[2], args[3:])
    elif command == 'add-quirky-device':
        print(obj('/').AddDevice(args[0], args[1], 'quirky', dbus_interface=BLUEZ_MOCK))
    elif command == 'set-rssi':
        obj(device_path(args[0], args[1])).UpdateProperties(
            DEVICE, {'RSSI': dbus.Int16(int(args[2]))}, dbus_interface=MOCK)
    elif command == 'set-manufacturer-data':
        obj(device_path(args[0], args[1])).Set(DEVICE, 'ManufacturerData', manufacturer_data(args[2:]),
                                               dbus_interface=dbus.PROPERTIES_IFACE)
    elif command == 'replay':
        replay(args[0], args[1])
    elif command == 'fail-start-discovery':
        code = f"raise dbus.exceptions.DBusException('mocked failure', name='{args[1]}')"
        obj(f'/org/bluez/{args[0]}').AddMethod(ADAPTER, 'StartDiscovery', '', '', code, dbus_interface=MOCK)
    elif command == 'refuse-start-discovery':
        # The count lives on the mock object under a name of its own, so a second call starts afresh.
        left = f'bikebeacon_refusals_{time.monotonic_ns()}'
        code = (
            f"left = getattr(self, '{left}', {int(args[2])})\n"
            "if left > 0:\n"
            f"    setattr(self, '{left}', left - 1)\n"
            f"    raise dbus.exceptions.DBusException('refused by the test', name='{args[1]}')\n"
            f"setattr(self, '{left}', 0)\n"
            f"self.props['{ADAPTER}']['Discovering'] = True\n"
            "self.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', "
            f"['{ADAPTER}', {{'Discovering': dbus.Boolean(True, variant_level=1)}}, dbus.Array([], signature='s')])\n"
        )
        obj(f'/org/bluez/{args[0]}').AddMethod(ADAPTER, 'StartDiscovery', '', '', code, dbus_interface=MOCK)
    elif command == 'set-discovering':
        obj(f'/org/bluez/{args[0]}').UpdateProperties(
            ADAPTER, {'Discovering': dbus.Boolean(args[1] == 'true')}, dbus_interface=MOCK)
    elif command == 'discovering':
        print(bool(obj(f'/org/bluez/{args[0]}').Get(ADAPTER, 'Discovering', dbus_interface=dbus.PROPERTIES_IFACE)))
    elif command == 'objects':
        for path in sorted(obj('/').GetManagedObjects(dbus_interface=OBJECT_MANAGER)):
            print(path)
    else:
        sys.exit(f'unknown command {command}; see the usage at the top of this file')


if __name__ == '__main__':
    try:
        main(sys.argv)
    except dbus.exceptions.DBusException as error:
        sys.exit(f'{error.get_dbus_name()}: {error.get_dbus_message()}')
