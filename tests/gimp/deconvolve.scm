; plug-in-cuda-deconvolve in real GIMP 3, from Script-Fu, called the way a
; user types it.  A 7x3 image, black in columns 0-2 and white in 3-6,
; blurred by plug-in-cuda-convolve's box-3 preset (in linear light: 0 0
; 156 213 255 ...), then restored by the same mask: the edge comes back
; sharper than the blur left it.  Bad input, some of it values Python's
; config cannot hold (0 iterations, NaN noise), is refused with the pixels
; and the undo state as they were.  Run by tests/test-gimp.sh; it signals
; an error at the end when anything failed, which makes GIMP exit non-zero.
;
; SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

(define checks 0)
(define failures 0)

(define (check ok what)
  (set! checks (+ checks 1))
  (if ok
      (begin (display "ok   - ") (display what) (newline))
      (begin (set! failures (+ failures 1))
             (display "FAIL - ") (display what) (newline))))

(define (red layer x y) (car (car (gimp-drawable-get-pixel layer x y))))

; A fresh 7x3 RGB image: black columns 0-2, white columns 3-6, blurred by
; box-3 along the rows, clean.
(define (blurred-step)
  (let* ((img (car (gimp-image-new 7 3 RGB)))
         (layer (car (gimp-layer-new img "step" 7 3 RGB-IMAGE 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img layer 0 0)
    (gimp-context-set-foreground '(255 255 255))
    (gimp-drawable-fill layer FILL-FOREGROUND)
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 0 0 3 3)
    (gimp-context-set-foreground '(0 0 0))
    (gimp-drawable-edit-fill layer FILL-FOREGROUND)
    (gimp-selection-none img)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                           #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                           #:divisor 3.0)
    (gimp-image-clean-all img)
    (list img layer)))

; Richardson-Lucy, 200 iterations from the image, by the blur's own mask:
; both sides of the edge move back towards black and white.
(let* ((il (blurred-step)) (img (car il)) (layer (cadr il))
       (dark (red layer 2 1)) (light (red layer 3 1))
       (result (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                                        #:drawables (vector layer) #:mask-width 3
                                        #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                                        #:iterations 200 #:init "image")))
  (check (and (= dark 156) (= light 213)) "the blur leaves 156 and 213 across the edge")
  (check (and (< (red layer 2 1) (- dark 40)) (> (red layer 3 1) (+ light 20)))
         (string-append "Richardson-Lucy sharpens the edge: "
                        (number->string (red layer 2 1)) " "
                        (number->string (red layer 3 1))))
  (check (and (= (red layer 0 1) (red layer 0 0)) (= (red layer 6 1) (red layer 6 2)))
         "rows restored alike")
  (check (equal? (car result) "cpu") "method-used is cpu without a GPU")
  (check (> (string-length (cadr result)) 0) "device is named")
  (check (= (car (gimp-image-is-dirty img)) 1) "the image is dirty afterwards")
  (gimp-image-delete img))

; Wiener with its noise: the same edge sharpened too.
(let* ((il (blurred-step)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                           #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                           #:algorithm "wiener" #:noise 0.001)
  (check (and (< (red layer 2 1) 156) (> (red layer 3 1) 213))
         (string-append "Wiener sharpens the edge: " (number->string (red layer 2 1)) " "
                        (number->string (red layer 3 1))))
  (gimp-image-delete img))

; Bad input: refused, pixels and the undo state as they were.
(define (refused what thunk)
  (let* ((il (blurred-step)) (img (car il)) (layer (cadr il)))
    (check (eq? (catch 'refused (begin (thunk img layer) 'ran)) 'refused)
           (string-append what ": refused"))
    (check (and (= (red layer 2 1) 156) (= (red layer 3 1) 213)
                (= (car (gimp-image-is-dirty img)) 0))
           (string-append what ": pixels untouched, image clean"))
    (gimp-image-delete img)))

(refused "0 iterations"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:iterations 0)))
(refused "NaN noise"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:algorithm "wiener" #:noise (/ 0.0 0.0))))
(refused "tv-weight 0.5"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:tv-weight 0.5)))
(refused "shape disc, radius 0"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 0.0)))
(refused "negative weights for Richardson-Lucy"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:preset "sharpen")))
(refused "an offset"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:preset "edge-laplacian"
                             #:algorithm "wiener")))
(refused "an unknown algorithm"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:algorithm "Wiener")))

(display "deconvolve Script-Fu: ") (display checks) (display " checks, ")
(display failures) (display " failures") (newline)
(if (> failures 0) (error "Script-Fu checks failed"))
