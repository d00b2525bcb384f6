#!/bin/sh
# Makes the images' base root filesystem: Debian bookworm (debootstrap's minbase variant) without
# its package tooling or documentation, plus the unprivileged user the processes run as.
# Both build paths run it: the Containerfile's build stage and the offline builder (images/build).
# Usage: make-rootfs.sh DIR MIRROR UID
set -eu
rootfs=$1
mirror=$2
uid=$3

debootstrap --variant=minbase bookworm "$rootfs" "$mirror"

# Package managers and what only they use (Perl is there for dpkg's and debconf's scripts): a
# running image installs nothing. Each package's file list says what to delete.
for package in apt libapt-pkg6.0 dpkg debconf debian-archive-keyring gpgv adduser perl-base; do
  for list in "$rootfs/var/lib/dpkg/info/$package.list" "$rootfs/var/lib/dpkg/info/$package:"*.list; do
    [ -f "$list" ] || continue
    while read -r path; do
      # Folders stay, and so do /lib, /sbin, … (links to folders under /usr) which the lists name too.
      if [ -d "$rootfs$path" ]; then continue; fi
      if [ -L "$rootfs$path" ] || [ -f "$rootfs$path" ]; then rm -f "$rootfs$path"; fi
    done < "$list"
  done
done
rm -rf "$rootfs/var/lib/dpkg" "$rootfs/var/lib/apt" "$rootfs/etc/apt" "$rootfs/etc/dpkg" \
  "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/locale" \
  "$rootfs/usr/share/lintian" "$rootfs/var/log/"* "$rootfs/var/cache/"*

echo "shop:x:$uid:$uid:shop:/tmp:/usr/sbin/nologin" >> "$rootfs/etc/passwd"
echo "shop:x:$uid:" >> "$rootfs/etc/group"
