/* soccerbt.native._recording: what _recording.c (the module, the status slot, the slot tables)
 * and encode.c (the recorder's encoders) share. */
#ifndef SOCCERBT_NATIVE_RECORDING_H
#define SOCCERBT_NATIVE_RECORDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>
#include <string.h>
#include <stdint.h>

/* attribute names, interned once by the module's init */
extern PyObject *s_bt_status, *s_env, *s_status_log, *s_status_observer, *s_uid, *s_code;
extern PyObject *s_t_s, *s_camera_frame, *s_fallen, *s_odometry, *s_imu_yaw_rad, *s_head_pan_rad,
    *s_head_tilt_rad, *s_detections, *s_line_segments, *s_kind, *s_team, *s_confidence, *s_value_attr;
extern PyObject *s_vx_mps, *s_vy_mps, *s_vtheta_radps, *s_kick, *s_direction_rad, *s_strength;
extern PyObject *s_sequence_id, *s_value, *s_writer, *s_writer_seq, *s_x_m, *s_y_m, *s_theta_rad, *s_removed;
/* setup(): the Pose2D class and the JSON text of other blackboard values */
extern PyObject *g_pose_cls, *g_json_text;

/* ---------------------------------------------------------------- a growable byte buffer */

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static inline int buf_reserve(Buf *b, Py_ssize_t more) {
    if (b->len + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + more) cap *= 2;
    char *p = PyMem_Realloc(b->data, cap);
    if (p == NULL) { PyErr_NoMemory(); return -1; }
    b->data = p;
    b->cap = cap;
    return 0;
}

static inline int buf_put(Buf *b, const void *src, Py_ssize_t n) {
    if (n == 0) return 0;
    if (buf_reserve(b, n) < 0) return -1;
    memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

static inline int buf_u8(Buf *b, unsigned char v) { return buf_put(b, &v, 1); }

static inline void buf_free(Buf *b) { PyMem_Free(b->data); b->data = NULL; b->len = b->cap = 0; }

/* ---------------------------------------------------------------- slots read in place */

typedef struct {
    PyTypeObject *type;     /* the class whose slots these are (a strong reference), or NULL */
    Py_ssize_t offset[4];
} SlotTable;

extern SlotTable g_entry, g_env;
enum { E_SEQ = 0, E_VALUE = 1, E_WRITER = 2, E_WRITER_SEQ = 3 };
enum { V_STATUS_LOG = 0, V_STATUS_OBSERVER = 1 };

PyObject *slot_get(SlotTable *t, int i, PyObject *obj, PyObject *name);  /* a new reference */
PyObject *status_code(PyObject *status);                                   /* a new reference */
int float_attr(PyObject *obj, PyObject *name, double *out);

/* encode.c: the module's functions */
PyObject *bb_changes(PyObject *mod, PyObject *args);
PyObject *encode_tick(PyObject *mod, PyObject *args);
PyObject *encode_inputs(PyObject *mod, PyObject *args);
PyObject *encode_truth(PyObject *mod, PyObject *args);
PyObject *join_repeated(PyObject *mod, PyObject *args);

#endif
