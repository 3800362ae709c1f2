/*
 * Batched UDP for the DNS edge: recvmmsg and sendmmsg, which the JDK does not offer. One call
 * moves up to BATCH datagrams, so a busy edge enters the kernel about once per batch rather
 * than twice per query (the same design as NSD and gdnsd). Java owns every buffer; this file
 * only checks their bounds and moves bytes.
 *
 * Layout shared with NativeUdp.java: datagram i lives at data + i * slot; its 32-byte metadata
 * record at meta + i * 32 holds the length (int32, native order; -1 = truncated on receive,
 * not to be sent on send), the family (4 or 6) at byte 4, the port (network order) at bytes 6-7
 * and the address at bytes 8-23.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define META 32

static int fits(JNIEnv *env, jobject data, jobject meta, jint count, jint slot) {
  if (count <= 0 || count > BATCH || slot <= 0) return 0;
  jlong dataCap = (*env)->GetDirectBufferCapacity(env, data);
  jlong metaCap = (*env)->GetDirectBufferCapacity(env, meta);
  return (jlong)count * slot <= dataCap && (jlong)count * META <= metaCap;
}

JNIEXPORT jint JNICALL Java_io_healthmesh_edge_server_NativeUdp_open(JNIEnv *env, jclass c, jbyteArray address,
                                                                     jint port) {
  jsize n = (*env)->GetArrayLength(env, address);
  if (n != 4 && n != 16) return -EAFNOSUPPORT;
  int fd = socket(n == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  int one = 1;
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t length;
  if (n == 4) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    (*env)->GetByteArrayRegion(env, address, 0, 4, (jbyte *)&a->sin_addr);
    length = sizeof *a;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    (*env)->GetByteArrayRegion(env, address, 0, 16, (jbyte *)&a->sin6_addr);
    length = sizeof *a;
  }
  /* SO_REUSEPORT: every listening thread has its own socket on the same port, as with NIO. */
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
      || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0
      || bind(fd, (struct sockaddr *)&ss, length) < 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

JNIEXPORT jint JNICALL Java_io_healthmesh_edge_server_NativeUdp_localPort(JNIEnv *env, jclass c, jint fd) {
  struct sockaddr_storage ss;
  socklen_t length = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &length) < 0) return -errno;
  in_port_t port = ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port;
  return ntohs(port);
}

/* Waits for one datagram (shutdown ends the wait), then takes whatever else is already queued. */
JNIEXPORT jint JNICALL Java_io_healthmesh_edge_server_NativeUdp_receive(JNIEnv *env, jclass c, jint fd, jobject data,
    jobject meta, jint count, jint slot) {
  if (!fits(env, data, meta, count, slot)) return -EINVAL;
  char *d = (char *)(*env)->GetDirectBufferAddress(env, data);
  unsigned char *m = (unsigned char *)(*env)->GetDirectBufferAddress(env, meta);
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_in6 from[BATCH];
  memset(msgs, 0, sizeof(struct mmsghdr) * count);
  for (int i = 0; i < count; i++) {
    iov[i].iov_base = d + (long)i * slot;
    iov[i].iov_len = slot;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
    msgs[i].msg_hdr.msg_name = &from[i];
    msgs[i].msg_hdr.msg_namelen = sizeof from[i];
  }
  int n;
  do {
    n = recvmmsg(fd, msgs, count, MSG_WAITFORONE, NULL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -errno;
  for (int i = 0; i < n; i++) {
    unsigned char *r = m + (long)i * META;
    int32_t length = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? -1 : (int32_t)msgs[i].msg_len;
    memset(r, 0, META);
    memcpy(r, &length, 4);
    if (from[i].sin6_family == AF_INET) {
      struct sockaddr_in *a = (struct sockaddr_in *)&from[i];
      r[4] = 4;
      memcpy(r + 6, &a->sin_port, 2);
      memcpy(r + 8, &a->sin_addr, 4);
    } else {
      r[4] = 6;
      memcpy(r + 6, &from[i].sin6_port, 2);
      memcpy(r + 8, &from[i].sin6_addr, 16);
    }
  }
  return n;
}

/* Sends every record whose length is >= 0; returns how many the kernel refused. */
JNIEXPORT jint JNICALL Java_io_healthmesh_edge_server_NativeUdp_send(JNIEnv *env, jclass c, jint fd, jobject data,
    jobject meta, jint count, jint slot) {
  if (!fits(env, data, meta, count, slot)) return -EINVAL;
  char *d = (char *)(*env)->GetDirectBufferAddress(env, data);
  unsigned char *m = (unsigned char *)(*env)->GetDirectBufferAddress(env, meta);
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_in6 to[BATCH];
  int k = 0;
  for (int i = 0; i < count; i++) {
    unsigned char *r = m + (long)i * META;
    int32_t length;
    memcpy(&length, r, 4);
    if (length < 0 || length > slot) continue;
    memset(&msgs[k], 0, sizeof msgs[k]);
    memset(&to[k], 0, sizeof to[k]);
    iov[k].iov_base = d + (long)i * slot;
    iov[k].iov_len = length;
    msgs[k].msg_hdr.msg_iov = &iov[k];
    msgs[k].msg_hdr.msg_iovlen = 1;
    msgs[k].msg_hdr.msg_name = &to[k];
    if (r[4] == 4) {
      struct sockaddr_in *a = (struct sockaddr_in *)&to[k];
      a->sin_family = AF_INET;
      memcpy(&a->sin_port, r + 6, 2);
      memcpy(&a->sin_addr, r + 8, 4);
      msgs[k].msg_hdr.msg_namelen = sizeof *a;
    } else {
      to[k].sin6_family = AF_INET6;
      memcpy(&to[k].sin6_port, r + 6, 2);
      memcpy(&to[k].sin6_addr, r + 8, 16);
      msgs[k].msg_hdr.msg_namelen = sizeof to[k];
    }
    k++;
  }
  int sent = 0, refused = 0;
  while (sent < k) {
    int n = sendmmsg(fd, msgs + sent, k - sent, 0);
    if (n > 0) {
      sent += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      sent++; /* the kernel refused this datagram (no route, say): skip it, send the rest */
      refused++;
    }
  }
  return refused;
}

/* Wakes a thread blocked in receive; the socket is closed only after that thread has left. */
JNIEXPORT void JNICALL Java_io_healthmesh_edge_server_NativeUdp_shutdown(JNIEnv *env, jclass c, jint fd) {
  shutdown(fd, SHUT_RDWR);
}

JNIEXPORT void JNICALL Java_io_healthmesh_edge_server_NativeUdp_close(JNIEnv *env, jclass c, jint fd) {
  close(fd);
}

JNIEXPORT jstring JNICALL Java_io_healthmesh_edge_server_NativeUdp_describe(JNIEnv *env, jclass c, jint error) {
  char text[256];
  return (*env)->NewStringUTF(env, strerror_r(error, text, sizeof text));
}
